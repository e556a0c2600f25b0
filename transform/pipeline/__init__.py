"""Inputs to results: discover and read inputs, upgrade one file, a batch, validate, inventory, write outputs."""
