#!/usr/bin/env python3
"""Exports a PyTorch model with torch.export and writes a ready ampbench config that trains it.

Usage:
  scripts/export_model.py MODEL [--out DIR] [--name NAME] [--shape C,H,W] [--classes K]
                                [--context T] [--vocab V] [--sequence-classes] [--batch B]
                                [--model-arg KEY=VALUE ...]

MODEL is one of:
  torchvision:NAME   a torchvision classifier (resnet18, resnet50, vit_b_16, convnext_tiny, efficientnet_b0,
                     ...), freshly initialised with --classes outputs; images of --shape (default 3,224,224)
  gpt2, llama        a transformers causal LM at a small size (2 layers, 128 wide) for --vocab tokens and a
                     --context window, returning only its logits
  bert               a transformers BERT-style sequence classifier at the same size: token ids [N, --context]
                     to [N, --classes] logits
  transformers:TYPE  any transformers architecture by its model type (qwen2, mistral, phi3, gpt_neox,
                     distilbert, roberta, ...), from its config class at the same small size: a causal LM, or
                     with --sequence-classes a sequence classifier of --classes
  FILE.py:FACTORY    your own module: FACTORY() in FILE.py returns an nn.Module that maps a batch of
                     --shape features to [N, K] logits (--classes), or, with --context, int64 token ids
                     [N, T] to next-token logits [N, T, V] (--vocab), or with --sequence-classes as well,
                     token ids to [N, K] logits

--model-arg KEY=VALUE (repeatable) passes a keyword to the builder: torchvision's get_model (vit_b_16's
image_size=64 for --shape 3,64,64) or the transformers config (num_hidden_layers=4, hidden_act=gelu); VALUE is
read as JSON (64, 0.1, true, [1, 2]) and otherwise taken as a string. It replaces any size this script sets.

It writes DIR/NAME.pt2 (the program and its weights: the run's one initial state) and DIR/NAME.json, a config
with synthetic data, which ampbench sizes to the program's input; edit its data, train and precision sections as for any
config. The batch dimension is exported as dynamic, so any train.batch_size runs. The model is exported in
train() mode: ampbench runs its batch norm and dropout as eager PyTorch does in train() and eval().
"""
import argparse
import contextlib
import importlib.util
import json
import os
import sys

import torch


class LogitsOnly(torch.nn.Module):
    """A transformers LM's forward reduced to what ampbench takes: token ids in, logits out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).logits


def torchvision_model(name, classes, model_args=None):
    import torchvision

    return torchvision.models.get_model(name, weights=None, num_classes=classes, **(model_args or {}))


# A small size for any transformers architecture, in each family's own names: a key is set only where the
# architecture's config has it.
SMALL = {"num_hidden_layers": 2, "hidden_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,
         "intermediate_size": 256, "n_layer": 2, "n_embd": 128, "n_head": 4, "n_layers": 2, "dim": 128,
         "n_heads": 4, "hidden_dim": 256}


def transformers_auto_model(model_type, vocab, context, sequence_classes, classes, model_args):
    """transformers:TYPE: the architecture's config at SMALL (then `model_args`), as a causal LM returning
    its logits or a sequence classifier of `classes`."""
    import transformers

    defaults = transformers.AutoConfig.for_model(model_type).to_dict()
    sizes = {key: value for key, value in SMALL.items() if key in defaults}
    for key in ("max_position_embeddings", "n_positions"):
        if key in defaults:
            sizes[key] = max(context, 64)
    config = transformers.AutoConfig.for_model(model_type, vocab_size=vocab, **{**sizes, **model_args})
    # A sequence classifier reads the last non-pad token; a default pad id past the small vocabulary (phi3's
    # 32000) would not embed.
    if getattr(config, "pad_token_id", None) is None or config.pad_token_id >= vocab:
        config.pad_token_id = 0
    if sequence_classes:
        config.num_labels = classes
        return LogitsOnly(transformers.AutoModelForSequenceClassification.from_config(config))
    return LogitsOnly(transformers.AutoModelForCausalLM.from_config(config))


def transformers_model(name, vocab, context, dropout=None, classes=2, model_args=None):
    """A small GPT-2, LLaMA or BERT classifier (of `classes`); `dropout` replaces the config's dropout
    probabilities when given, `model_args` any of the config's keywords."""
    import transformers

    small = dict(vocab_size=vocab, **(model_args or {}))
    if name == "gpt2":
        config = transformers.GPT2Config(n_layer=2, n_head=4, n_embd=128, n_positions=context,
                                         bos_token_id=vocab - 1, eos_token_id=vocab - 1, **small)
        if dropout is not None:
            config.resid_pdrop = config.embd_pdrop = config.attn_pdrop = dropout
        return LogitsOnly(transformers.GPT2LMHeadModel(config))
    if name == "bert":
        config = transformers.BertConfig(num_hidden_layers=2, num_attention_heads=4, hidden_size=128,
                                         intermediate_size=256, max_position_embeddings=context,
                                         num_labels=classes, **small)
        if dropout is not None:
            config.hidden_dropout_prob = config.attention_probs_dropout_prob = dropout
        return LogitsOnly(transformers.BertForSequenceClassification(config))
    config = transformers.LlamaConfig(num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                      hidden_size=128, intermediate_size=256, max_position_embeddings=context,
                                      **small)
    if dropout is not None:
        config.attention_dropout = dropout
    return LogitsOnly(transformers.LlamaForCausalLM(config))


@contextlib.contextmanager
def autocast_regions_kept():
    """transformers enters its fp32 regions (LLaMA's rotary angles) through maybe_autocast, which skips the
    autocast context when autocast is off, as it is while torch.export traces: the program would then run
    those ops in the mode's 16-bit type. Entering the context always records it as wrap_with_autocast."""
    patched = []
    try:
        from transformers.utils import generic
    except ImportError:
        generic = None
    if generic is not None and hasattr(generic, "maybe_autocast"):
        original = generic.maybe_autocast

        def always(device_type, dtype=None, enabled=True, cache_enabled=None):
            return torch.autocast(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

        for module in list(sys.modules.values()):
            if getattr(module, "maybe_autocast", None) is original:
                module.maybe_autocast = always
                patched.append(module)
    try:
        yield
    finally:
        for module in patched:
            module.maybe_autocast = original


def export(model, example, path):
    """Exports `model` traced with `example` (its batch dimension dynamic) to the archive at `path`."""
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    with autocast_regions_kept():
        program = torch.export.export(model, (example,), dynamic_shapes=({0: batch},))
    torch.export.save(program, path)


def factory_model(spec):
    path, _, factory = spec.rpartition(":")
    module_spec = importlib.util.spec_from_file_location("user_model", path)
    if module_spec is None or not os.path.isfile(path):
        sys.exit(f"export_model.py: {path} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    if not hasattr(module, factory):
        sys.exit(f"export_model.py: {path} has no {factory}")
    return getattr(module, factory)()


TRANSFORMERS = ("gpt2", "llama", "bert")


def takes_tokens(args):
    return args.model in TRANSFORMERS or args.model.startswith("transformers:") or args.context is not None


def is_language_model(args):
    return takes_tokens(args) and args.model != "bert" and not args.sequence_classes


def build(args):
    if args.model.startswith("torchvision:"):
        return torchvision_model(args.model.split(":", 1)[1], args.classes, args.model_args)
    if args.model.startswith("transformers:"):
        return transformers_auto_model(args.model.split(":", 1)[1], args.vocab, args.context, args.sequence_classes,
                                       args.classes, args.model_args)
    if args.model in TRANSFORMERS:
        return transformers_model(args.model, args.vocab, args.context, classes=args.classes,
                                  model_args=args.model_args)
    if args.model_args:
        sys.exit("export_model.py: --model-arg is for torchvision:NAME and transformers models; FILE.py:FACTORY "
                 "takes none")
    if ":" in args.model and args.model.rpartition(":")[0].endswith(".py"):
        return factory_model(args.model)
    sys.exit(f"export_model.py: unknown model {args.model!r} (torchvision:NAME, transformers:TYPE, gpt2, llama, bert or "
             "FILE.py:FACTORY)")


def example_input(args):
    if takes_tokens(args):
        return torch.randint(0, args.vocab, (args.batch, args.context))
    return torch.randn(args.batch, *args.shape)


def data_section(args):
    """Synthetic data; ampbench sizes it (shape and classes, or context and vocabulary or classes) to the
    program. A sequence classifier's vocabulary is not in its logits: the data's is the one exported for."""
    if not takes_tokens(args):
        return {"synthetic": {"train_samples": 512, "val_samples": 128}}
    tokens = {"train_samples": 512, "val_samples": 128}
    if not is_language_model(args):
        tokens["vocab"] = args.vocab
    return {"synthetic_tokens": tokens}


def config_for(args, archive):
    return {
        "name": f"{args.name}-exported",
        "seed": 0,
        "model": {"type": "exported", "options": {"path": archive}},
        "data": data_section(args),
        "train": {"epochs": 2, "batch_size": 16, "optimizer": {"type": "adamw", "lr": 0.001, "weight_decay": 0.01},
                  "clip_grad_norm": 1.0, "warmup_steps": 2},
        "precision": {"modes": ["fp32", "tf32", "fp16", "bf16"]},
        "device": "auto",
        "output": {"dir": "results"},
    }


def model_arg(text):
    """KEY=VALUE, VALUE read as JSON where it is JSON and as a string where it is not."""
    key, equals, value = text.partition("=")
    if not equals or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a keyword, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--out", default="models-exported")
    parser.add_argument("--name")
    parser.add_argument("--shape", default="3,224,224", type=lambda s: [int(v) for v in s.split(",")])
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("--context", type=int)
    parser.add_argument("--vocab", type=int, default=1024)
    parser.add_argument("--sequence-classes", action="store_true",
                        help="FILE.py:FACTORY with --context: the module maps token ids to [N, --classes] logits")
    parser.add_argument("--batch", type=int, default=4, help="the example batch the program is traced with")
    parser.add_argument("--model-arg", action="append", default=[], type=model_arg, metavar="KEY=VALUE",
                        help="a keyword for the builder (torchvision's get_model, the transformers config)")
    args = parser.parse_args(argv)
    args.model_args = dict(args.model_arg)
    if (args.model in TRANSFORMERS or args.model.startswith("transformers:")) and args.context is None:
        args.context = 64
    args.name = args.name or args.model.rpartition(":")[2].replace("/", "_")
    return args


def main():
    args = parse_arguments()
    torch.manual_seed(0)
    model = build(args).train()
    os.makedirs(args.out, exist_ok=True)
    archive = os.path.join(args.out, args.name + ".pt2")
    export(model, example_input(args), archive)
    config = os.path.join(args.out, args.name + ".json")
    with open(config, "w") as out:
        json.dump(config_for(args, archive), out, indent=2)
        out.write("\n")
    print(f"wrote {archive} and {config}: build/ampbench --config {config}")


if __name__ == "__main__":
    main()
