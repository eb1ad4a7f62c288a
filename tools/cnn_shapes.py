#!/usr/bin/env python3
"""cnn_shapes.py - layer-by-layer shapes of the catalog's image CNNs.

Walks each network's published architecture at its standard 224x224 input and
counts, per image:
  architecture_flops   2 x the multiply-accumulates of every convolution and
                       fully connected layer (depthwise included), and
  activation_elements  the elements of every tensor a layer writes: each
                       convolution, pooling and fully connected output and each
                       residual addition (batch normalisation and activations
                       are taken as fused into the layer before them), and
  architecture_layers  the convolution and fully connected layers (each one
                       or more kernel launches).
Measured mode reads them (core/measured.c): the first sets the compute time,
the second the activation traffic that makes depthwise networks memory-bound,
the third the launch cost at small batch.

Architectures: He et al. 2016 (ResNet-18/50, Table 1; v1.5: stride on the 3x3),
Sandler et al. 2018 (MobileNetV2, Table 2), Tan & Le 2019 (EfficientNet-B0,
Table 1), Krizhevsky et al. 2012 (AlexNet, torchvision's single-tower layout).

Usage: tools/cnn_shapes.py catalog/data/models.json   (adds both fields, in place)
       tools/cnn_shapes.py --print                     (prints the table)
"""
import json
import sys


class Net:
    def __init__(self):
        self.macs = 0
        self.acts = 0
        self.layers = 0

    def conv(self, cin, cout, k, stride, h, groups=1, pad=None):
        """A k x k convolution on an h x h input; returns the output size."""
        if pad is None:
            pad = k // 2
        ho = (h + 2 * pad - k) // stride + 1
        self.macs += ho * ho * cout * (cin // groups) * k * k
        self.acts += ho * ho * cout
        self.layers += 1
        return ho

    def pool(self, c, k, stride, h, pad=0):
        ho = (h + 2 * pad - k) // stride + 1
        self.acts += ho * ho * c
        return ho

    def add(self, c, h):
        self.acts += c * h * h

    def fc(self, cin, cout):
        self.macs += cin * cout
        self.acts += cout
        self.layers += 1


def resnet(blocks, bottleneck):
    n = Net()
    h = n.conv(3, 64, 7, 2, 224)
    h = n.pool(64, 3, 2, h, pad=1)
    cin = 64
    for stage, count in enumerate(blocks):
        width = 64 * 2 ** stage
        cout = width * 4 if bottleneck else width
        for i in range(count):
            stride = 2 if (i == 0 and stage > 0) else 1
            if bottleneck:
                n.conv(cin, width, 1, 1, h)
                ho = n.conv(width, width, 3, stride, h)
                n.conv(width, cout, 1, 1, ho)
            else:
                ho = n.conv(cin, width, 3, stride, h)
                n.conv(width, width, 3, 1, ho)
            if stride != 1 or cin != cout:
                n.conv(cin, cout, 1, stride, h)
            n.add(cout, ho)
            h, cin = ho, cout
    n.pool(cin, h, h, h)
    n.fc(cin, 1000)
    return n


def make_divisible(v, divisor=8):
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


def mobilenet_v2(alpha=1.0, head=True):
    n = Net()
    c = make_divisible(32 * alpha)
    h = n.conv(3, c, 3, 2, 224)
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1)]
    for t, ch, count, s in settings:
        cout = make_divisible(ch * alpha)
        for i in range(count):
            stride = s if i == 0 else 1
            hidden = c * t
            if t != 1:
                n.conv(c, hidden, 1, 1, h)
            ho = n.conv(hidden, hidden, 3, stride, h, groups=hidden)
            n.conv(hidden, cout, 1, 1, ho)
            if stride == 1 and c == cout:
                n.add(cout, ho)
            h, c = ho, cout
    if head:
        last = make_divisible(1280 * max(1.0, alpha))
        n.conv(c, last, 1, 1, h)
        n.pool(last, h, h, h)
        n.fc(last, 1000)
    return n


def efficientnet_b0():
    n = Net()
    h = n.conv(3, 32, 3, 2, 224)
    c = 32
    # (expansion, kernel, stride, out channels, repeats), Tan & Le 2019 Table 1
    stages = [(1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3), (6, 5, 1, 112, 3),
              (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)]
    for e, k, s, cout, count in stages:
        for i in range(count):
            stride = s if i == 0 else 1
            hidden = c * e
            if e != 1:
                n.conv(c, hidden, 1, 1, h)
            ho = n.conv(hidden, hidden, k, stride, h, groups=hidden)
            # squeeze-and-excitation: global pool, two 1x1 on a vector, scale the map
            se = max(1, c // 4)
            n.pool(hidden, ho, ho, ho)
            n.fc(hidden, se)
            n.fc(se, hidden)
            n.add(hidden, ho)  # the scaled map is a new tensor
            n.conv(hidden, cout, 1, 1, ho)
            if stride == 1 and c == cout:
                n.add(cout, ho)
            h, c = ho, cout
    n.conv(c, 1280, 1, 1, h)
    n.pool(1280, h, h, h)
    n.fc(1280, 1000)
    return n


def alexnet():
    n = Net()
    h = n.conv(3, 64, 11, 4, 224, pad=2)
    h = n.pool(64, 3, 2, h)
    h = n.conv(64, 192, 5, 1, h, pad=2)
    h = n.pool(192, 3, 2, h)
    h = n.conv(192, 384, 3, 1, h)
    h = n.conv(384, 256, 3, 1, h)
    h = n.conv(256, 256, 3, 1, h)
    h = n.pool(256, 3, 2, h)
    n.fc(256 * 6 * 6, 4096)
    n.fc(4096, 4096)
    n.fc(4096, 1000)
    return n


NETS = {
    "ResNet18": lambda: resnet([2, 2, 2, 2], False),
    "ResNet50": lambda: resnet([3, 4, 6, 3], True),
    "MobileNetV2": lambda: mobilenet_v2(1.0),
    "MobileNetV2_Alpha0_5": lambda: mobilenet_v2(0.5),
    "EfficientNetB0": efficientnet_b0,
    "AlexNet": alexnet,
}

NOTE = "tools/cnn_shapes.py: counted layer by layer from the published architecture at 224x224"


def shapes():
    out = {}
    for key, make in NETS.items():
        n = make()
        out[key] = (2.0 * n.macs, float(n.acts), n.layers)
    return out


def quantity(v, unit, si_unit):
    return {"value": v, "unit": unit, "si": v, "si_unit": si_unit, "note": NOTE}


def patch(path):
    with open(path) as f:
        doc = json.load(f)
    table = shapes()
    for m in doc["models"]:
        if m.get("key") in table:
            flops, acts, layers = table[m["key"]]
            m["architecture_flops"] = quantity(flops, "flop", "flop")
            m["activation_elements"] = quantity(acts, "count", "count")
            m["architecture_layers"] = layers
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] != "--print":
        patch(sys.argv[1])
    else:
        for k, (fl, ac, ly) in shapes().items():
            print(f"{k:24s} {fl / 1e9:8.3f} GFLOP  {ac / 1e6:8.2f} M activation elements  {ly:4d} layers")
