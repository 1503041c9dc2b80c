#!/usr/bin/python3
"""Exports the ONNX test fixtures with PyTorch (Debian python3-torch, python3-onnx).

Run from the repository root: /usr/bin/python3 tools/onnx/export_fixtures.py (Debian's
python, which has the packages). Writes tests/fixtures/onnx/.
Each model mirrors a zoo model (same layers, PyTorch's NCHW layout). Large files are written with
their weights stripped (shapes kept), which is also how the importer's "weights absent" path is
tested: `strip()` clears the initializers' data and keeps their dims.
"""
import math
import os

import onnx
import torch
from torch import nn

OUT = os.path.join("tests", "fixtures", "onnx")


class MnistCnn(nn.Module):
    """zoo mnist_cnn: Keras examples/mnist_cnn.py in PyTorch."""
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.pool = nn.MaxPool2d(2)
        self.drop1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(9216, 128)
        self.drop2 = nn.Dropout(0.5)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = self.drop1(self.pool(x))
        x = torch.flatten(x, 1)
        x = self.drop2(torch.relu(self.fc1(x)))
        return torch.softmax(self.fc2(x), dim=1)


class TextLstm(nn.Module):
    """zoo lstm_text_generation: LSTM(128) over (40, 57) one-hot characters, dense 57, softmax."""
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(57, 128, batch_first=True)
        self.fc = nn.Linear(128, 57)

    def forward(self, x):
        y, _ = self.lstm(x)
        return torch.softmax(self.fc(y[:, -1, :]), dim=1)


class ImdbBiLstm(nn.Module):
    """zoo imdb_bidirectional_lstm: Embedding(20000, 128), BiLSTM(64) last state, dense 1."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20000, 128)
        self.lstm = nn.LSTM(128, 64, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(128, 1)

    def forward(self, ids):
        _, (h, _) = self.lstm(self.emb(ids))
        h = torch.cat([h[0], h[1]], dim=1)
        return torch.sigmoid(self.fc(self.drop(h)))


class SmallEncoder(nn.Module):
    """A two-layer transformer encoder (d=64, 4 heads, ffn 128) with a classifier on token 0."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.fc = nn.Linear(64, 2)

    def forward(self, ids):
        return self.fc(self.enc(self.emb(ids))[:, 0, :])


class ViewCnn(nn.Module):
    """A convolution flattened by view(): the batch size is folded into the Reshape targets of a
    static export (torch.onnx.export without dynamic_axes)."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.fc1 = nn.Linear(8 * 30 * 30, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x)).view(x.size(0), -1)
        return self.fc2(torch.relu(self.fc1(x)).view(-1, 32))


class MiniVit(nn.Module):
    """A two-layer pre-norm ViT on 32 x 32 images (8 x 8 patches, d=64, 4 heads): the class token
    is expanded over the batch (Shape, ConstantOfShape, Equal, Where, Expand) and concatenated."""
    def __init__(self, d=64):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 8, 8)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.zeros(1, 17, d))
        layer = nn.TransformerEncoderLayer(d, 4, 128, batch_first=True, norm_first=True,
                                           activation="gelu")
        self.enc = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.enc(x)[:, 0])


class GptBlock(nn.Module):
    """GPT-2's block as nanoGPT writes it: causal self-attention over a registered tril mask
    (sliced to the sequence, masked_fill: Slice, Equal, Where), tanh GELU, pre-norm."""
    def __init__(self, d=64, heads=4, context=32):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * d, d))
        self.register_buffer("mask", torch.tril(torch.ones(context, context))
                             .view(1, 1, context, context))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class MiniGpt(nn.Module):
    """Token and position embeddings (wpe(arange(T)): a Gather of learned rows at constant
    indices), two GptBlocks, final norm, untied head."""
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(500, 64)
        self.wpe = nn.Embedding(32, 64)
        self.blocks = nn.Sequential(GptBlock(), GptBlock())
        self.ln = nn.LayerNorm(64)
        self.head = nn.Linear(64, 500, bias=False)

    def forward(self, idx):
        pos = torch.arange(0, idx.size(1), dtype=torch.long).unsqueeze(0)
        return self.head(self.ln(self.blocks(self.wte(idx) + self.wpe(pos))))


class MhaWeights(nn.Module):
    """nn.MultiheadAttention used directly (sequence first) with its averaged attention weights
    (need_weights: a ReduceSum over the heads), exported in train mode so its dropout stays;
    y.mean(0) reduces the axis before the batch."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.mha = nn.MultiheadAttention(32, 4, dropout=0.1)
        self.fc = nn.Linear(42, 3)

    def forward(self, ids):
        h = self.emb(ids).transpose(0, 1)
        y, w = self.mha(h, h, h)
        return self.fc(torch.cat([y.mean(0), w.mean(1)], dim=1))


def strip(path):
    m = onnx.load(path)
    for init in m.graph.initializer:
        if init.data_type == onnx.TensorProto.FLOAT and len(init.dims) > 0:
            init.ClearField("raw_data")
            init.ClearField("float_data")
            init.data_location = onnx.TensorProto.DEFAULT
    onnx.save(m, path)


def export(model, example, name, input_names, stripped, dynamic=True, train=False):
    model.train(train)
    path = os.path.join(OUT, name + ".onnx")
    axes = {n: {0: "batch"} for n in input_names + ["out"]} if dynamic else None
    mode = torch.onnx.TrainingMode.PRESERVE if train else torch.onnx.TrainingMode.EVAL
    torch.onnx.export(model, example, path, input_names=input_names, output_names=["out"],
                      dynamic_axes=axes, opset_version=14, do_constant_folding=True,
                      training=mode)
    if stripped:
        strip(path)
    print("wrote", path, os.path.getsize(path), "bytes")


def main():
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    export(MnistCnn(), torch.zeros(1, 1, 28, 28), "mnist_cnn", ["image"], stripped=True)
    export(TextLstm(), torch.zeros(1, 40, 57), "text_lstm", ["chars"], stripped=False)
    export(ImdbBiLstm(), torch.zeros(1, 100, dtype=torch.long), "imdb_bilstm", ["ids"],
           stripped=True)
    export(SmallEncoder(), torch.zeros(1, 16, dtype=torch.long), "small_encoder", ["ids"],
           stripped=True)
    # Static exports (the batch size folded into the graph), at a batch of 4.
    export(SmallEncoder(), torch.zeros(4, 16, dtype=torch.long), "small_encoder_static", ["ids"],
           stripped=True, dynamic=False)
    export(ViewCnn(), torch.zeros(4, 3, 32, 32), "view_cnn_static", ["image"], stripped=True,
           dynamic=False)
    export(MiniVit(), torch.zeros(4, 3, 32, 32), "mini_vit", ["image"], stripped=True)
    export(MiniVit(), torch.zeros(4, 3, 32, 32), "mini_vit_static", ["image"], stripped=True,
           dynamic=False)
    export(MiniGpt(), torch.zeros(4, 32, dtype=torch.long), "mini_gpt", ["ids"], stripped=True)
    export(MiniGpt(), torch.zeros(4, 32, dtype=torch.long), "mini_gpt_static", ["ids"],
           stripped=True, dynamic=False)
    export(MhaWeights(), torch.zeros(4, 10, dtype=torch.long), "mha_weights", ["ids"],
           stripped=True, train=True)
    export(MhaWeights(), torch.zeros(4, 10, dtype=torch.long), "mha_weights_static", ["ids"],
           stripped=True, dynamic=False, train=True)


if __name__ == "__main__":
    main()
