"""Flux's HelmRelease and Argo CD's Application: the Helm values they carry inline (`values`), read as a chart's
values file is. `format` is the format as the engine asks it."""
