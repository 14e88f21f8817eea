"""The PyTorch-Python side of tests/test_export_parity.cpp: exports a module with scripts/export_model.py's
export() and trains the module itself from the same weights on the same batches, eagerly, as the reference.

Usage: export_oracle.py MODEL OUT_DIR
  MODEL: cnn (a conv + batch-norm classifier), mlp, resnet18 (torchvision's), gpt2, llama (transformers'
  small configs from export_model.py, dropout off: its masks could not be the same draws in both);
  bn-nostats (batch norm with track_running_stats=False), frozen (a batch norm and a dropout put in eval()
  before export, as fine-tuning freezes them), dropout-core (dropout, exported and decomposed to core ATen:
  native_dropout with its `bool? train`), weight-norm (a linear layer whose weight weight_norm computes
  each forward, 16 classes so that the fp8 modes take its products), tconv (a decoder's transposed
  convolution), dynamic-seq (token ids to next-token logits through a plain attention, exported with its
  sequence length dynamic), causal-mask (that attention masked with masked_fill(-inf))

Writes OUT_DIR/model.pt2 and OUT_DIR/oracle.pt: the batches ("x", "y"), the SGD settings ("hyper": lr,
momentum, weight decay), the first batch's logits from the initial weights in each mode, in train()
("logits/<mode>") and eval() ("logits_eval/<mode>"), as fp32, each step's loss in fp32, bf16 and fp16
("losses/<mode>": forward and loss under torch.autocast in the 16-bit modes, fp16's backward and step through
torch.amp.GradScaler) and the first fp32 step's gradients by parameter name ("grad/<name>"), every run from
the weights the archive holds. The random draws start from SEED before each logits forward and each training
run, so a dropout model draws the masks ampbench's run draws after the same seed. For the models without
scaled_dot_product_attention (whose CPU kernel torch.utils.flop_counter does not count), "flops": the matrix
FLOPs of one sample's fp32 training step as flop_counter counts them (forward and backward), and for
dynamic-seq "flops_long" at twice the exported sequence length; for dropout-core, "cosine/bf16": the first batch's
bf16 gradient against fp32's, both from the same random draws (the same masks).
"""
import copy
import importlib.util
import os
import sys

SKIP = 77
try:
    import torch
except ImportError:
    print("export_oracle.py: no torch in this Python")
    sys.exit(SKIP)
import torch.nn as nn
import torch.nn.functional as F

STEPS, BATCH, SEED = 20, 8, 1234
LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.0, 5e-4  # momentum: see train()
VOCAB, CONTEXT = 96, 16
MODES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def export_script():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "export_model.py")
    spec = importlib.util.spec_from_file_location("export_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def needs(package):
    if importlib.util.find_spec(package) is None:
        print(f"export_oracle.py: no {package} in this Python")
        sys.exit(SKIP)


def frozen_net():
    """A batch norm and a dropout that stay in eval() in a module trained in train(), as fine-tuning
    freezes them: `frozen` lists them for train_mode()."""
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Dropout(0.5),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    model.frozen = [model[1], model[3]]
    return model


class DynamicSeq(nn.Module):
    """Token ids to next-token logits through one head of attention written out in matmuls."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.qkv = nn.Linear(32, 96)
        self.head = nn.Linear(32, VOCAB)

    def forward(self, ids):
        q, k, v = self.qkv(self.embed(ids)).chunk(3, dim=-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / 32 ** 0.5
        return self.head(torch.matmul(scores.softmax(-1), v))


class CausalMask(DynamicSeq):
    """DynamicSeq's attention made causal by hand: the scores above the diagonal filled with -inf, which
    torch.export writes as the string "-Infinity"."""

    def forward(self, ids):
        q, k, v = self.qkv(self.embed(ids)).chunk(3, dim=-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / 32 ** 0.5
        future = torch.ones(ids.size(1), ids.size(1), dtype=torch.bool, device=ids.device).triu(1)
        return self.head(torch.matmul(scores.masked_fill(future, float("-inf")).softmax(-1), v))


class LiftedConstant(nn.Module):
    """A linear layer shifted by a plain tensor attribute, which torch.export lifts as a constant (10
    elements), and scaled by a one-element buffer."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(192, 10))
        self.register_buffer("scale", torch.full((1,), 0.5))
        self.shift = torch.linspace(-1.0, 1.0, 10)

    def forward(self, x):
        return self.body(x) * self.scale + self.shift


def train_mode(model):
    model.train()
    for module in getattr(model, "frozen", []):
        module.eval()


def make(name, script):
    """The module and one sample's shape (None: CONTEXT token ids)."""
    if name == "bn-nostats":
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8, track_running_stats=False),
                             nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10)), (3, 8, 8)
    if name == "frozen":
        return frozen_net(), (3, 8, 8)
    if name == "dropout-core":
        return nn.Sequential(nn.Flatten(), nn.Linear(192, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 10)), (3, 8, 8)
    if name == "tconv":
        return nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                             nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10)), (3, 8, 8)
    if name == "dynamic-seq":
        return DynamicSeq(), None
    if name == "causal-mask":
        return CausalMask(), None
    if name == "lifted-constant":
        return LiftedConstant(), (3, 8, 8)
    if name == "weight-norm":
        return nn.Sequential(nn.Flatten(), nn.utils.parametrizations.weight_norm(nn.Linear(192, 64)), nn.ReLU(),
                             nn.Linear(64, 16)), (3, 8, 8)
    if name == "cnn":
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10)), (3, 8, 8)
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(192, 64), nn.ReLU(), nn.Linear(64, 10)), (3, 8, 8)
    if name == "resnet18":
        needs("torchvision")
        return script.torchvision_model("resnet18", 10), (3, 32, 32)
    needs("transformers")
    return script.transformers_model(name, VOCAB, CONTEXT, dropout=0.0), None


def batches(shape, batch, steps=STEPS):
    if shape is None:
        return torch.randint(0, VOCAB, (steps, batch, CONTEXT)), torch.randint(0, VOCAB, (steps, batch, CONTEXT))
    return torch.randn(steps, batch, *shape), torch.randint(0, 10, (steps, batch))


def loss_of(logits, y):
    """ampbench's loss: cross-entropy in fp32 over every position of a language model's logits."""
    return F.cross_entropy(logits.flatten(0, -2).float(), y.flatten())


def train(model, xs, ys, mode):
    # No momentum: torch's fused SGD leaves a momentum buffer it allocated unset when GradScaler skips the
    # first step (ampbench's starts at zero), so the two would part at fp16's first skipped step.
    dtype = MODES[mode]
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY,
                                fused=True)
    scaler = torch.amp.GradScaler("cpu") if dtype == torch.float16 else None
    losses, first = [], None
    torch.manual_seed(SEED)
    for x, y in zip(xs, ys):
        with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            loss = loss_of(model(x), y)
        optimizer.zero_grad()
        (scaler.scale(loss) if scaler else loss).backward()
        if first is None:
            first = {name: p.grad.clone() for name, p in model.named_parameters()}
        if scaler:
            scaler.unscale_(optimizer)  # as ampbench's GradScaler::step: the fused step gets found_inf only
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        losses.append(loss.item())
    return torch.tensor(losses, dtype=torch.float64), first


def export_archive(name, script, model, example, path):
    """export_model.py's export(); dropout-core's decomposed to core ATen, as a user's may be, and
    dynamic-seq's with its sequence length dynamic too."""
    if name not in ("dropout-core", "dynamic-seq"):
        script.export(model, example, path)
        return
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    if name == "dynamic-seq":
        length = torch.export.Dim("length", min=2, max=4096)
        program = torch.export.export(model, (example,), dynamic_shapes=({0: batch, 1: length},))
    else:
        program = torch.export.export(model, (example,), dynamic_shapes=({0: batch},)).run_decompositions()
    torch.export.save(program, path)


def step_flops(model, shape, length=CONTEXT):
    """flop_counter's matrix FLOPs of one sample's fp32 training step (counted on two, halved)."""
    from torch.utils.flop_counter import FlopCounterMode
    model = copy.deepcopy(model)
    if shape is None:
        x, y = torch.randint(0, VOCAB, (2, length)), torch.randint(0, VOCAB, (2, length))
    else:
        x, y = torch.randn(2, *shape), torch.randint(0, 10, (2,))
    with FlopCounterMode(display=False) as counter:
        loss_of(model(x), y).backward()
    return counter.get_total_flops() / 2


def bf16_gradient_cosine(model, x, y):
    """The first batch's gradient in bf16 against fp32's, each drawn from SEED: the same dropout masks."""
    gradients = []
    for dtype in (None, torch.bfloat16):
        torch.manual_seed(SEED)
        model.zero_grad()
        with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            loss = loss_of(model(x), y)
        loss.backward()
        gradients.append(torch.cat([p.grad.flatten() for p in model.parameters()]).double())
    return F.cosine_similarity(gradients[0], gradients[1], dim=0)


def logits(model, x, mode):
    with torch.no_grad(), torch.autocast("cpu", dtype=MODES[mode] or torch.bfloat16, enabled=mode != "fp32"):
        torch.manual_seed(SEED)
        return model(x).float()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name, out = sys.argv[1], sys.argv[2]
    script = export_script()
    torch.manual_seed(0)
    model, shape = make(name, script)
    train_mode(model)
    initial = copy.deepcopy(model.state_dict())
    # ResNet-18's 16-bit steps are the suite's slowest where the CPU has no 16-bit arithmetic: it runs 8 steps
    # of 4 samples (the parity is asserted step by step, whatever the batch and however many steps).
    x, y = batches(shape, 4, 8) if name == "resnet18" else batches(shape, BATCH)
    export_archive(name, script, copy.deepcopy(model), x[0, :4], f"{out}/model.pt2")
    saved = {"x": x, "y": y, "hyper": torch.tensor([LR, MOMENTUM, WEIGHT_DECAY], dtype=torch.float64)}
    if name not in ("gpt2", "llama"):
        saved["flops"] = torch.tensor(step_flops(model, shape), dtype=torch.float64)
    if name == "dynamic-seq":
        saved["flops_long"] = torch.tensor(step_flops(model, shape, 2 * CONTEXT), dtype=torch.float64)
    # In train() dropout draws its masks: the eager module's dropout draws them otherwise than the program's
    # native_dropout, which the program's own module runs eagerly in Python as ampbench runs it (in train(),
    # the only mode that module has). eval() is the eager module's.
    trained = torch.export.load(f"{out}/model.pt2").module() if name == "dropout-core" else model
    for mode in MODES:
        model.load_state_dict(initial)
        model.eval()
        saved[f"logits_eval/{mode}"] = logits(model, x[0], mode)
        train_mode(model)
        trained.load_state_dict(initial)
        saved[f"logits/{mode}"] = logits(trained, x[0], mode)
        trained.load_state_dict(initial)  # the forward moved batch norm's statistics
        losses, first = train(trained, x, y, mode)
        saved[f"losses/{mode}"] = losses
        if mode == "fp32":
            saved.update({f"grad/{k}": v for k, v in first.items()})
    if name == "dropout-core":
        trained.load_state_dict(initial)  # the program's module: always in train(), dropout on
        saved["cosine/bf16"] = bf16_gradient_cosine(trained, x[0], y[0])
    torch.save(saved, f"{out}/oracle.pt")


if __name__ == "__main__":
    main()
