"""The architectures of models/ as PyTorch-Python modules, for scripts/peer_pytorch.py and the twins and
oracles that build the same model as ampbench: MLP, ResNet (basic and bottleneck blocks), GPT, and an exported
model's own module with its archive's weights."""
import argparse
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def refuse(message, code=2):
    """Bad input, as ampbench reports it: one line on stderr and exit code 2."""
    print(message, file=sys.stderr)
    sys.exit(code)


def mlp(options, shape, classes):
    layers, width = [nn.Flatten()], math.prod(shape)
    for _ in range(options["depth"]):
        layers += [nn.Linear(width, options["width"]), nn.ReLU(inplace=True)]
        width = options["width"]
    return nn.Sequential(*layers, nn.Linear(width, classes))


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = projection(inplanes, planes, stride) if stride != 1 or inplanes != planes else None

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (self.downsample(x) if self.downsample is not None else x))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        needs = stride != 1 or inplanes != planes * 4
        self.downsample = projection(inplanes, planes * 4, stride) if needs else None

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return F.relu(out + (self.downsample(x) if self.downsample is not None else x))


def projection(inplanes, planes, stride):
    return nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))


class ResNet(nn.Module):
    def __init__(self, block, blocks, classes, in_channels, cifar_stem):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, 64, 3 if cifar_stem else 7, 1 if cifar_stem else 2,
                               1 if cifar_stem else 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.max_pool = not cifar_stem
        layers, inplanes = [], 64
        for planes, count, stride in zip((64, 128, 256, 512), blocks, (1, 2, 2, 2)):
            stage = []
            for i in range(count):
                stage.append(block(inplanes, planes, stride if i == 0 else 1))
                inplanes = planes * block.expansion
            layers.append(nn.Sequential(*stage))
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.fc = nn.Linear(inplanes, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight), nn.init.zeros_(m.bias)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        if self.max_pool:
            x = F.max_pool2d(x, 3, 2, 1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv, self.projection = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (part.view(b, t, self.heads, d // self.heads).transpose(1, 2) for part in self.qkv(x).split(d, 2))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.projection(y.transpose(1, 2).contiguous().view(b, t, d))


class Block(nn.Module):
    """ampbench's PreNormBlock, its parameters named and drawn in the same order."""

    def __init__(self, d, heads):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attention = SelfAttention(d, heads)
        self.expand, self.contract = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.contract(F.gelu(self.expand(self.ln_2(x)), approximate="tanh"))


class Gpt(nn.Module):
    def __init__(self, o, vocab):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, o["d_model"])
        self.position_embedding = nn.Embedding(o["context"], o["d_model"])
        self.blocks = nn.ModuleList(Block(o["d_model"], o["n_head"]) for _ in range(o["n_layer"]))
        self.ln_f = nn.LayerNorm(o["d_model"])
        residual_std = 0.02 / math.sqrt(2 * o["n_layer"])
        with torch.no_grad():
            for name, p in self.named_parameters():
                if "ln_" in name:
                    continue
                if name.endswith(".bias"):
                    p.zero_()
                else:
                    residual = name.endswith("projection.weight") or name.endswith("contract.weight")
                    p.normal_(0.0, residual_std if residual else 0.02)

    def forward(self, tokens):
        x = self.token_embedding(tokens) + self.position_embedding(torch.arange(tokens.size(1), device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln_f(x), self.token_embedding.weight)


def exported_module(spec, archive, shape, classes):
    """The eager module an exported model's archive was made from, as scripts/export_model.py builds it from
    `spec` (its MODEL argument), with the archive's weights: the same module as ampbench's, run by Python."""
    if spec is None:
        refuse("peer_pytorch.py: an exported model needs --module: the module it was exported from, as "
               "scripts/export_model.py's MODEL names it")
    import export_model  # beside this script
    module = export_model.build(argparse.Namespace(model=spec, classes=classes, vocab=classes, context=shape[0],
                                                   sequence_classes=False, model_args={}))
    try:
        module.load_state_dict(torch.export.load(archive).state_dict)
    except RuntimeError as error:
        refuse(f"peer_pytorch.py: --module {spec} is not the module {archive} was exported from: "
               f"{str(error).splitlines()[0]}")
    return module


def build_model(model, shape, classes, module=None):
    kind, options = model["type"], model["options"]
    if kind == "exported":
        return exported_module(module, options["path"], shape, classes)
    if kind == "mlp":
        return mlp(options, shape, classes)
    if kind.startswith("resnet"):
        block, blocks = {"resnet18": (BasicBlock, (2, 2, 2, 2)), "resnet34": (BasicBlock, (3, 4, 6, 3)),
                         "resnet50": (Bottleneck, (3, 4, 6, 3))}[kind]
        return ResNet(block, blocks, classes, shape[0], options["stem"] == "cifar")
    if kind == "gpt":
        return Gpt(options, classes)
    refuse(f"peer_pytorch.py: unknown model {kind}")
