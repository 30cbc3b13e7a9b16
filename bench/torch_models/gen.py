#!/usr/bin/python3
# Small torchvision-architecture models for measuring tosac's quantizer (issue 11), made by
# us from torchvision's architecture code (BSD-3-Clause) with random weights (nothing is
# downloaded). Needs Debian's python3-torch and python3-torchvision; neither the product nor
# its tests need them (CI never runs this).
#
# Every BatchNormalization's running statistics are recalibrated on the sample images (the
# model runs in train mode over them, cumulative average), after its gamma/beta were drawn
# with a per-channel spread (a trained network's channels differ in range; gamma 1, beta 0
# everywhere would make every channel alike), so activations have realistic ranges.
#
# Samples come from the zoo's real images (mobilenet_v2's three 224x224 inputs and ppocr's
# eight 48x192 text lines, under $TOSAC_SHARED_DIR/models), augmented (random crops, flips,
# brightness/contrast and noise): SAMPLES (40) per model. The held-out split of
# bench/quant_holdout.sh (FOLDS folds) never calibrates on a measured sample, but every sample
# is an augmentation of the same 11 images.
#
# Usage: /usr/bin/python3 bench/torch_models/gen.py OUT_DIR
#   writes OUT_DIR/models/<name>/{model.onnx,inputs/NN/x.npy,expected/NN/<output>.npy}
#   (the zoo layout the bench scripts read: TOSAC_SHARED_DIR=OUT_DIR) and copies each
#   model.onnx to bench/torch_models/<name>.onnx.
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision.models import efficientnet as tv_eff
from torchvision.models import mnasnet as tv_mnas
from torchvision.models import shufflenetv2 as tv_shuf
from torchvision.models import squeezenet as tv_sq

SAMPLES = 40
HERE = os.path.dirname(os.path.abspath(__file__))
ZOO = os.path.join(os.environ.get("TOSAC_SHARED_DIR", "/work/shared"), "models")


def base_images():
    imgs = []
    for s in ("00", "01", "02"):
        imgs.append(np.load(os.path.join(ZOO, "mobilenet_v2_f32_op13/inputs", s, "input.npy")))
    for s in range(8):
        imgs.append(np.load(os.path.join(ZOO, "ppocr_mobile_v2_cls/inputs", "%02d" % s, "x.npy")))
    return [torch.from_numpy(x) for x in imgs]


def augment(imgs, n, h, w, gen):
    """n samples of [1, 3, h, w]: a random base image, random crop (30-100% of each side),
    resized, maybe flipped, contrast/brightness jitter and a little noise."""
    out = []
    for i in range(n):
        x = imgs[i % len(imgs)]
        H, W = x.shape[2], x.shape[3]
        ch = max(8, int(H * (0.3 + 0.7 * torch.rand(1, generator=gen).item())))
        cw = max(8, int(W * (0.3 + 0.7 * torch.rand(1, generator=gen).item())))
        y0 = int(torch.randint(0, H - ch + 1, (1,), generator=gen))
        x0 = int(torch.randint(0, W - cw + 1, (1,), generator=gen))
        c = x[:, :, y0:y0 + ch, x0:x0 + cw]
        c = F.interpolate(c, size=(h, w), mode="bilinear", align_corners=False)
        if torch.rand(1, generator=gen).item() < 0.5:
            c = torch.flip(c, dims=[3])
        c = c * (0.8 + 0.4 * torch.rand(1, generator=gen)) + 0.2 * (torch.rand(1, generator=gen) - 0.5)
        c = c + 0.03 * torch.randn(c.shape, generator=gen)
        out.append(c.contiguous())
    return out


def spread_bn(model, gen):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm1d)):
            n = m.num_features
            m.weight.data = torch.exp(0.4 * torch.randn(n, generator=gen))
            m.bias.data = 0.3 * torch.randn(n, generator=gen)
        if isinstance(m, nn.LayerNorm) and m.elementwise_affine:
            n = m.weight.numel()
            m.weight.data = torch.exp(0.3 * torch.randn(n, generator=gen)).reshape(m.weight.shape)
            m.bias.data = 0.2 * torch.randn(n, generator=gen).reshape(m.bias.shape)


def recalibrate_bn(model, samples):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm1d)):
            m.reset_running_stats()
            m.momentum = None  # cumulative average over every batch
    model.train()
    with torch.no_grad():
        for _ in range(2):
            for i in range(0, len(samples), 8):
                model(torch.cat(samples[i:i + 8]))
    model.eval()


# ---- the models ------------------------------------------------------------------------

def shufflenet():
    # shufflenet_v2_x0_5's structure (channel split, shuffle, concat) at reduced width
    return tv_shuf.ShuffleNetV2([2, 3, 2], [16, 32, 64, 128, 256], num_classes=100)


def mnasnet():
    m = tv_mnas.MNASNet(0.25, num_classes=100)  # mnasnet0_5 at half its width
    # the 1280-wide head would dominate the file: a 320-wide last conv
    last_in = m.layers[14].in_channels
    m.layers[14] = nn.Conv2d(last_in, 320, 1, bias=False)
    m.layers[15] = nn.BatchNorm2d(320, momentum=1 - 0.9997)
    m.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(320, 100))
    return m


def efficientnet():
    # efficientnet_b0's blocks (MBConv: SiLU, squeeze-excitation with Sigmoid) at width 0.25
    setting, _ = tv_eff._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.5)
    return tv_eff.EfficientNet(setting, 0.2, num_classes=100, last_channel=320)


def squeezenet():
    # squeezenet1_1's layout with half-width Fire modules
    Fire = tv_sq.Fire
    feats = nn.Sequential(
        nn.Conv2d(3, 32, 3, stride=2), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(32, 8, 32, 32), Fire(64, 8, 32, 32),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(64, 16, 64, 64), Fire(128, 16, 64, 64),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(128, 24, 96, 96), Fire(192, 24, 96, 96), Fire(192, 32, 128, 128),
        Fire(256, 32, 128, 128))
    m = tv_sq.SqueezeNet("1_1", num_classes=100)
    m.features = feats
    m.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(256, 100, 1), nn.ReLU(inplace=True),
                                 nn.AdaptiveAvgPool2d((1, 1)))
    for mod in m.modules():  # SqueezeNet's own init only covered the replaced layers
        if isinstance(mod, nn.Conv2d):
            nn.init.kaiming_uniform_(mod.weight)
            nn.init.constant_(mod.bias, 0)
    return m


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.scale = (dim // heads) ** -0.5

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        a = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * self.scale, dim=-1)
        y = torch.matmul(a, v).transpose(1, 2).reshape(b, n, c)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.n1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.n2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim * 2)
        self.fc2 = nn.Linear(dim * 2, dim)

    def forward(self, x):
        x = x + self.attn(self.n1(x))
        return x + self.fc2(F.gelu(self.fc1(self.n2(x))))


class TinySVTR(nn.Module):
    """An SVTR-style text recogniser: conv stem, tokens along the width, two transformer
    blocks (LayerNorm, MatMul attention with Softmax, GELU MLP), per-token class logits."""

    def __init__(self, dim=64, classes=40):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.Hardswish(),
            nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.Hardswish(),
            nn.Conv2d(32, dim, 3, (2, 1), 1), nn.BatchNorm2d(dim), nn.Hardswish())
        self.blocks = nn.Sequential(Block(dim, 4), Block(dim, 4))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        f = self.stem(x)  # [1, dim, 6, 48]
        f = f.flatten(2).transpose(1, 2)  # [1, 288, dim]
        f = self.blocks(f)
        f = self.norm(f)
        b, n, c = f.shape
        f = f.reshape(b, 6, 48, c).mean(1)  # [1, 48, dim]: one token per column
        return self.head(f)


def cbr(i, o, s=1, act=None):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o),
                         act if act is not None else nn.ReLU())


class SE(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // 4, 1)
        self.fc2 = nn.Conv2d(c // 4, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))


class TinyDet(nn.Module):
    """A DB-style text detector head (PP-OCR det): HardSwish backbone with HardSigmoid SE,
    FPN with Resize (nearest) and Concat, ConvTranspose upsampling, HardSigmoid probability map."""

    def __init__(self):
        super().__init__()
        hs = nn.Hardswish
        self.c1 = cbr(3, 16, 2, hs())
        self.c2 = nn.Sequential(cbr(16, 24, 2, hs()), SE(24))
        self.c3 = nn.Sequential(cbr(24, 48, 2, hs()), SE(48))
        self.l3 = nn.Conv2d(48, 24, 1)
        self.l2 = nn.Conv2d(24, 24, 1)
        self.p = cbr(48, 16)
        self.up1 = nn.ConvTranspose2d(16, 16, 2, 2)
        self.bn = nn.BatchNorm2d(16)
        self.up2 = nn.ConvTranspose2d(16, 1, 2, 2)

    def forward(self, x):
        f2 = self.c2(self.c1(x))
        f3 = self.c3(f2)
        u3 = F.interpolate(self.l3(f3), scale_factor=2.0, mode="nearest")
        m = torch.cat([u3, self.l2(f2)], 1)
        h = self.p(m)
        h = F.relu(self.bn(self.up1(h)))
        return F.hardsigmoid(self.up2(h))


MODELS = [
    # name, constructor, input (h, w), output name
    ("shufflenet_small", shufflenet, (96, 96), "logits"),
    ("mnasnet_small", mnasnet, (96, 96), "logits"),
    ("efficientnet_small", efficientnet, (96, 96), "logits"),
    ("squeezenet_small", squeezenet, (96, 96), "logits"),
    ("svtr_tiny", TinySVTR, (48, 192), "logits"),
    ("det_tiny", TinyDet, (48, 192), "prob"),
]


def save_npy(path, t):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.save(path, t.detach().numpy().astype(np.float32))


def main():
    out = sys.argv[1]
    imgs = base_images()
    for k, (name, ctor, (h, w), oname) in enumerate(MODELS):
        torch.manual_seed(1000 + k)
        gen = torch.Generator().manual_seed(2000 + k)
        model = ctor()
        spread_bn(model, gen)
        samples = augment(imgs, SAMPLES, h, w, gen)
        recalibrate_bn(model, samples)
        d = os.path.join(out, "models", name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        torch.onnx.export(model, samples[0], os.path.join(d, "model.onnx"), opset_version=13,
                          input_names=["x"], output_names=[oname], do_constant_folding=True)
        with torch.no_grad():
            for i, s in enumerate(samples):
                save_npy(os.path.join(d, "inputs", "%02d" % i, "x.npy"), s)
                save_npy(os.path.join(d, "expected", "%02d" % i, oname + ".npy"), model(s))
        shutil.copy(os.path.join(d, "model.onnx"), os.path.join(HERE, name + ".onnx"))
        print(name, os.path.getsize(os.path.join(d, "model.onnx")), "bytes")


if __name__ == "__main__":
    main()
