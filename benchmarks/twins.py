"""ampbench's reference models as PyTorch modules, to export: scripts/peer_models.py's (ampbench's models
layer for layer, with the same parameter names) at the sizes of the native configs beside this file, so
that an exported program, the native model it is benchmarked against and the eager module the Python peer
trains are one model.

  .venv-cuda/bin/python scripts/export_model.py benchmarks/twins.py:gpt --context 64 --vocab 256 --name gpt-twin
  .venv-cuda/bin/python scripts/export_model.py benchmarks/twins.py:resnet18 --shape 3,32,32 --classes 10 \
      --name resnet18-twin
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from peer_models import build_model  # noqa: E402  (after the path that finds it)


def twin(native_config):
    config = json.loads((HERE / native_config).read_text())
    model, ((source, data),) = dict(config["model"]), config["data"].items()
    if source == "synthetic_tokens":
        model["options"] = dict(model["options"], context=data["context"])
        return build_model(model, [data["context"]], data["vocab"])
    return build_model(model, data["shape"], data["classes"])


def gpt():
    return twin("gpt-native.json")


def resnet18():
    return twin("resnet18-native.json")
