"""kustomize trees: kustomizations and Components (their patch targets and inline patches upgraded:
`kustomization`, `inline`), the files they list as patches read as partial objects (`facts`: gathered
across the inputs, said per file as hints). `format` is the format as the engine asks it."""
