"""Runs ampbench's weights through the original architectures: the Vision Transformer of torchvision
(torchvision.models.VisionTransformer) and Hugging Face transformers' LlamaForCausalLM. The weights come
from tests/test_model_parity.cpp, which saved them by ampbench's names; each is copied to the original's
parameter of the mapped name (every parameter of the original exactly once, shapes equal), the inputs
are run forward in fp32, and the outputs are saved for the C++ test to compare with its own.

Usage: model_oracles.py {vit|llama} SPEC.json IN.pt OUT.pt
Exits 77, with a line saying which, when the original's package is not installed for this Python.
"""
import json
import re
import sys

SKIP = 77


def require(module):
    try:
        return __import__(module)
    except ImportError as error:
        print(f"skipped: {module} is not installed for {sys.executable} ({error})")
        sys.exit(SKIP)


# ampbench's parameter names to torchvision's VisionTransformer's.
VIT_NAMES = [
    (r"patch_embedding\.(weight|bias)", r"conv_proj.\1"),
    (r"class_token", r"class_token"),
    (r"position_embedding", r"encoder.pos_embedding"),
    (r"blocks\.(\d+)\.(ln_[12])\.(weight|bias)", r"encoder.layers.encoder_layer_\1.\2.\3"),
    (r"blocks\.(\d+)\.attention\.qkv\.(weight|bias)", r"encoder.layers.encoder_layer_\1.self_attention.in_proj_\2"),
    (r"blocks\.(\d+)\.attention\.projection\.(weight|bias)", r"encoder.layers.encoder_layer_\1.self_attention.out_proj.\2"),
    (r"blocks\.(\d+)\.expand\.(weight|bias)", r"encoder.layers.encoder_layer_\1.mlp.0.\2"),
    (r"blocks\.(\d+)\.contract\.(weight|bias)", r"encoder.layers.encoder_layer_\1.mlp.3.\2"),
    (r"ln_f\.(weight|bias)", r"encoder.ln.\1"),
    (r"head\.(weight|bias)", r"heads.head.\1"),
]

# ampbench's parameter names to transformers' LlamaForCausalLM's.
LLAMA_NAMES = [
    (r"token_embedding\.weight", r"model.embed_tokens.weight"),
    (r"blocks\.(\d+)\.attention_norm\.weight", r"model.layers.\1.input_layernorm.weight"),
    (r"blocks\.(\d+)\.mlp_norm\.weight", r"model.layers.\1.post_attention_layernorm.weight"),
    (r"blocks\.(\d+)\.attention\.query\.weight", r"model.layers.\1.self_attn.q_proj.weight"),
    (r"blocks\.(\d+)\.attention\.key\.weight", r"model.layers.\1.self_attn.k_proj.weight"),
    (r"blocks\.(\d+)\.attention\.value\.weight", r"model.layers.\1.self_attn.v_proj.weight"),
    (r"blocks\.(\d+)\.attention\.output\.weight", r"model.layers.\1.self_attn.o_proj.weight"),
    (r"blocks\.(\d+)\.(gate|up|down)\.weight", r"model.layers.\1.mlp.\2_proj.weight"),
    (r"norm\.weight", r"model.norm.weight"),
    (r"lm_head\.weight", r"lm_head.weight"),
]


def renamed(weights, rules):
    out = {}
    for name, tensor in weights.items():
        matches = [re.sub(f"^{pattern}$", to, name) for pattern, to in rules if re.fullmatch(pattern, name)]
        if len(matches) != 1:
            sys.exit(f"ampbench parameter {name} maps to {len(matches)} names of the original")
        out[matches[0]] = tensor
    return out


def build_vit(spec):
    models = require("torchvision").models
    options, (channels, height, width) = spec["options"], spec["shape"]
    if channels != 3 or height != width:
        sys.exit("torchvision's ViT takes square RGB images")
    return models.VisionTransformer(
        image_size=height, patch_size=options["patch"], num_layers=options["n_layer"],
        num_heads=options["n_head"], hidden_dim=options["d_model"], mlp_dim=options["d_mlp"],
        num_classes=spec["classes"]), VIT_NAMES, False


def build_llama(spec):
    transformers = require("transformers")
    options = spec["options"]
    config = transformers.LlamaConfig(
        vocab_size=spec["classes"], hidden_size=options["d_model"], intermediate_size=options["d_mlp"],
        num_hidden_layers=options["n_layer"], num_attention_heads=options["n_head"],
        num_key_value_heads=options["n_kv_head"], max_position_embeddings=options["context"],
        rms_norm_eps=options["norm_eps"], tie_word_embeddings=options["tie_embeddings"],
        rope_parameters={"rope_type": "default", "rope_theta": options["rope_theta"]},
        attention_bias=False, mlp_bias=False)
    # The eager path (an explicit softmax) rather than SDPA, so that the oracle shares no kernel with ampbench.
    config._attn_implementation = "eager"
    return transformers.LlamaForCausalLM(config), LLAMA_NAMES, options["tie_embeddings"]


def main(model_name, spec_path, in_path, out_path):
    torch = require("torch")
    import torch.jit._pickle
    with open(spec_path) as f:
        spec = json.load(f)
    model, rules, tied = {"vit": build_vit, "llama": build_llama}[model_name](spec)
    # torch::pickle_save tags a typed C++ dict with restore_type_tag: allow just that.
    with torch.serialization.safe_globals([torch.jit._pickle.restore_type_tag]):
        saved = torch.load(in_path)
    weights = renamed({k[len("weight/"):]: v for k, v in saved.items() if k.startswith("weight/")}, rules)
    if tied:  # the original's state dict names the shared tensor twice
        weights["lm_head.weight"] = weights["model.embed_tokens.weight"]
    model.load_state_dict(weights, strict=True)
    if tied and model.lm_head.weight.data_ptr() != model.model.embed_tokens.weight.data_ptr():
        sys.exit("the original's LM head is not tied to its embedding")
    model.eval()
    with torch.no_grad():
        outputs = model(saved["inputs"])
    outputs = outputs.logits if hasattr(outputs, "logits") else outputs
    torch.save({"outputs": outputs.contiguous()}, out_path)


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("vit", "llama"):
        sys.exit(__doc__)
    main(*sys.argv[1:])
