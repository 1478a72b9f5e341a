# docs/roles/tool-author.md: from an empty folder to a guarded tool (run by tests/test_docs_examples.py)
set -euo pipefail
contractgen init lookup       # writes contracts/lookup/1.0.0.yaml: every field filled in or explained
contractgen check             # 1 manifest checked, no errors
contractgen build             # generated/lookup_v1.py: models, typed errors, the guarded stub, exports
python lookup_tool.py         # the implementation below, called with good and bad arguments
