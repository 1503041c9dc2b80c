#!/usr/bin/env python3
"""Writes the zoo, data/models/*.json, from the reference implementations each model names.

Run from the repository root: python3 tools/zoo/generate.py. Standard library only. The parameter
count each file must reach is asserted by tests/engine/zoo_test.cpp, which cites the reference.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from builder import ModelBuilder  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "data", "models")

KERAS_BENCH = ("minimaxir/deep-learning-cpu-gpu-benchmark test_files/%s.py (Keras 2.0 example, "
               "as in ../shared/validation/published-models.md)")
IMAGENET = dict(optimizer="sgd", batch=32, samples=1281167, val_samples=50000)


def mnist_mlp():
    m = ModelBuilder("mnist_mlp", KERAS_BENCH % "mnist_mlp",
                     "MLP on flattened MNIST: 784-512-512-10, dropout 0.2",
                     dict(optimizer="rmsprop", batch=128, samples=60000, val_samples=10000,
                          learning_rate=0.001))
    m.add("input", shape=[784])
    m.add("dense", units=512, activation="relu")
    m.add("dropout", rate=0.2)
    m.add("dense", units=512, activation="relu")
    m.add("dropout", rate=0.2)
    m.add("dense", units=10, activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def mnist_cnn():
    m = ModelBuilder("mnist_cnn", KERAS_BENCH % "mnist_cnn",
                     "Two 3x3 convolutions, max pooling, dense 128 on MNIST",
                     dict(optimizer="adadelta", batch=128, samples=60000, val_samples=10000,
                          learning_rate=1.0))
    m.add("input", shape=[28, 28, 1])
    m.add("conv2d", filters=32, kernel=[3, 3], activation="relu")
    m.add("conv2d", filters=64, kernel=[3, 3], activation="relu")
    m.add("max_pool2d", kernel=[2, 2])
    m.add("dropout", rate=0.25)
    m.add("flatten")
    m.add("dense", units=128, activation="relu")
    m.add("dropout", rate=0.5)
    m.add("dense", units=10, activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def cifar10_cnn():
    m = ModelBuilder("cifar10_cnn", KERAS_BENCH % "cifar10_cnn",
                     "Four 3x3 convolutions, two poolings, dense 512 on CIFAR-10; 1562 steps of 32 per epoch (augmented generator)",
                     dict(optimizer="rmsprop", batch=32, samples=49984, val_samples=10000,
                          learning_rate=0.0001))
    m.add("input", shape=[32, 32, 3])
    m.add("conv2d", filters=32, kernel=[3, 3], padding="same", activation="relu")
    m.add("conv2d", filters=32, kernel=[3, 3], activation="relu")
    m.add("max_pool2d", kernel=[2, 2])
    m.add("dropout", rate=0.25)
    m.add("conv2d", filters=64, kernel=[3, 3], padding="same", activation="relu")
    m.add("conv2d", filters=64, kernel=[3, 3], activation="relu")
    m.add("max_pool2d", kernel=[2, 2])
    m.add("dropout", rate=0.25)
    m.add("flatten")
    m.add("dense", units=512, activation="relu")
    m.add("dropout", rate=0.5)
    m.add("dense", units=10, activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def imdb_fasttext():
    m = ModelBuilder("imdb_fasttext", KERAS_BENCH % "imdb_fasttext",
                     "fastText-style bag of n-gram embeddings: Embedding(max_features, 50), global "
                     "average pooling, one sigmoid unit. max_features is 20,001 + distinct bigrams "
                     "at run time (unknown, order 10^6); set it with --param max_features=N",
                     dict(optimizer="adam", batch=32, samples=25000, val_samples=25000,
                          learning_rate=0.001),
                     parameters={"max_features": 20000, "maxlen": 400})
    m.add("input", shape=["$maxlen"], dtype="int32")
    m.add("embedding", vocab="$max_features", units=50)
    m.add("global_avg_pool1d")
    m.add("dense", units=1, activation="sigmoid")
    m.add("loss", loss="binary_crossentropy")
    return m


def imdb_bidirectional_lstm():
    m = ModelBuilder("imdb_bidirectional_lstm", KERAS_BENCH % "imdb_bidirectional_lstm",
                     "Embedding(20000, 128), Bidirectional(LSTM(64)), dropout, one sigmoid unit",
                     dict(optimizer="adam", batch=32, samples=25000, val_samples=25000,
                          learning_rate=0.001))
    m.add("input", shape=[100], dtype="int32")
    m.add("embedding", vocab=20000, units=128)
    m.add("lstm", units=64, bidirectional=True, output="last")
    m.add("dropout", rate=0.5)
    m.add("dense", units=1, activation="sigmoid")
    m.add("loss", loss="binary_crossentropy")
    return m


def lstm_text_generation():
    m = ModelBuilder("lstm_text_generation", KERAS_BENCH % "lstm_text_generation",
                     "LSTM(128) over one-hot Nietzsche characters (40 x 57), dense 57, softmax; "
                     "200,285 sequences per epoch",
                     dict(optimizer="rmsprop", batch=128, samples=200285, val_samples=0,
                          learning_rate=0.01))
    m.add("input", shape=[40, 57])
    m.add("lstm", units=128, output="last")
    m.add("dense", units=57)
    m.add("activation", activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def text_generator_keras():
    m = ModelBuilder("text_generator_keras", KERAS_BENCH % "text_generator_keras",
                     "Embedding(57, 300), LSTM(128), an auxiliary softmax head and a main head "
                     "512-BN-ReLU-256-BN-ReLU-57; two losses weighted 1.0 and 0.2",
                     dict(optimizer="adam", batch=128, samples=200285, val_samples=0))
    m.add("input", name="input", shape=[40], dtype="int32")
    m.add("embedding", vocab=57, units=300)
    lstm = m.add("lstm", units=128, output="last")
    m.add("dense", name="aux_out", units=57, activation="softmax")
    m.add("loss", name="aux_loss", loss="categorical_crossentropy", weight=0.2)
    m.add("dense", inputs=lstm, units=512, use_bias=False)
    m.add("batch_norm")
    m.add("activation", activation="relu")
    m.add("dense", units=256, use_bias=False)
    m.add("batch_norm")
    m.add("activation", activation="relu")
    m.add("dense", name="main_out", units=57, activation="softmax")
    m.add("loss", name="main_loss", loss="categorical_crossentropy", weight=1.0)
    return m


def lstm_char_cnn():
    m = ModelBuilder(
        "lstm_char_cnn",
        "mkroutikov/tf-lstm-char-cnn train.py defaults at fb557d1 (Kim et al. LSTM-Char-Large), "
        "as in ../shared/validation/published-models.md section 3",
        "Character CNN (widths 1-7, 1,100 filters) + 2 highway + 2 x LSTM(650) + softmax over "
        "10,000 words, unrolled 35 steps, words 21 characters wide",
        dict(optimizer="sgd", batch=20, samples=26540, val_samples=0))
    m.add("input", name="chars", shape=[35, 21], dtype="int32")
    m.add("embedding", name="char_embedding", vocab=51, units=15)
    widths = [1, 2, 3, 4, 5, 6, 7]
    features = [50, 100, 150, 200, 200, 200, 200]
    pooled = []
    for k, f in zip(widths, features):
        m.add("conv2d", name="conv_w%d" % k, inputs="char_embedding", filters=f, kernel=[1, k],
              activation="tanh")
        m.add("max_pool2d", name="max_w%d" % k, kernel=[1, 21 - k + 1])
        pooled.append(m.add("reshape", name="words_w%d" % k, target_shape=[35, f]))
    m.add("concatenate", name="cnn_out", inputs=pooled, axis=-1)
    m.add("highway", name="highway_1", layers=1)
    m.add("highway", name="highway_2", layers=1)
    m.add("dropout", name="lstm1_in_dropout", rate=0.5)
    m.add("lstm", name="lstm_1", units=650, output="sequence")
    m.add("dropout", name="lstm2_in_dropout", rate=0.5)
    m.add("lstm", name="lstm_2", units=650, output="sequence")
    m.add("dropout", name="lstm_out_dropout", rate=0.5)
    m.add("dense", name="softmax_w", units=10000)
    m.add("loss", loss="sparse_softmax_cross_entropy")
    return m


def vgg16():
    m = ModelBuilder("vgg16", "keras.applications.vgg16.VGG16(include_top=True)",
                     "VGG16 at 224x224 with the 1000-class top",
                     IMAGENET)
    m.add("input", shape=[224, 224, 3])
    for block, (filters, convs) in enumerate([(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]):
        for c in range(convs):
            m.add("conv2d", name="block%d_conv%d" % (block + 1, c + 1), filters=filters,
                  kernel=[3, 3], padding="same", activation="relu")
        m.add("max_pool2d", name="block%d_pool" % (block + 1), kernel=[2, 2], strides=[2, 2])
    m.add("flatten", name="flatten")
    m.add("dense", name="fc1", units=4096, activation="relu")
    m.add("dense", name="fc2", units=4096, activation="relu")
    m.add("dense", name="predictions", units=1000, activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def resnet(name, blocks, v1_5=False):
    """ResNet v1 as keras.applications builds it (biased convolutions, a downsampling block's
    stride on its first 1x1 convolution), or with v1_5 torchvision's resnet50, which NVIDIA
    DeepLearningExamples trains as ResNet50 v1.5: the stride on the 3x3 convolution instead, and
    convolutions without bias (each is followed by batch norm)."""
    if v1_5:
        m = ModelBuilder(name, "torchvision.models.resnet50 (torchvision/models/resnet.py: "
                         "Bottleneck, stride on conv2); NVIDIA DeepLearningExamples "
                         "PyTorch/Classification/ConvNets resnet50 is this network",
                         "ResNet50 v1.5 (torchvision) at 224x224 with the 1000-class top",
                         IMAGENET)
    else:
        m = ModelBuilder(name, "keras.applications.resnet.%s(include_top=True) (keras/applications/"
                         "resnet.py: stack1/block1, biased convolutions)" % name.replace(
                             "resnet", "ResNet"),
                         "ResNet v1 bottleneck network at 224x224 with the 1000-class top",
                         IMAGENET)
    bias = {"use_bias": False} if v1_5 else {}
    m.add("input", name="input", shape=[224, 224, 3])
    m.add("zero_padding2d", name="conv1_pad", pads=[3, 3, 3, 3])
    m.add("conv2d", name="conv1_conv", filters=64, kernel=[7, 7], strides=[2, 2], **bias)
    m.add("batch_norm", name="conv1_bn")
    m.add("activation", name="conv1_relu", activation="relu")
    m.add("zero_padding2d", name="pool1_pad", pads=[1, 1, 1, 1])
    x = m.add("max_pool2d", name="pool1_pool", kernel=[3, 3], strides=[2, 2])

    def block(x, filters, stride, conv_shortcut, prefix):
        if conv_shortcut:
            m.add("conv2d", name=prefix + "_0_conv", inputs=x, filters=4 * filters, kernel=[1, 1],
                  strides=[stride, stride], **bias)
            shortcut = m.add("batch_norm", name=prefix + "_0_bn")
        else:
            shortcut = x
        first, middle = (1, stride) if v1_5 else (stride, 1)
        m.add("conv2d", name=prefix + "_1_conv", inputs=x, filters=filters, kernel=[1, 1],
              strides=[first, first], **bias)
        m.add("batch_norm", name=prefix + "_1_bn")
        m.add("activation", name=prefix + "_1_relu", activation="relu")
        m.add("conv2d", name=prefix + "_2_conv", filters=filters, kernel=[3, 3],
              **({"strides": [middle, middle]} if v1_5 else {}), padding="same", **bias)
        m.add("batch_norm", name=prefix + "_2_bn")
        m.add("activation", name=prefix + "_2_relu", activation="relu")
        m.add("conv2d", name=prefix + "_3_conv", filters=4 * filters, kernel=[1, 1], **bias)
        last = m.add("batch_norm", name=prefix + "_3_bn")
        m.add("add", name=prefix + "_add", inputs=[shortcut, last])
        return m.add("activation", name=prefix + "_out", activation="relu")

    for stage, (filters, n, stride) in enumerate(
            zip([64, 128, 256, 512], blocks, [1, 2, 2, 2])):
        for b in range(n):
            x = block(x, filters, stride if b == 0 else 1, b == 0,
                      "conv%d_block%d" % (stage + 2, b + 1))
    m.add("global_avg_pool2d", name="avg_pool")
    m.add("dense", name="predictions", units=1000, activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def correct_pad(size, k):
    """keras.applications.imagenet_utils.correct_pad for a square input of extent `size`."""
    adjust = 1 - size % 2
    c = k // 2
    return [c - adjust, c, c - adjust, c]


def make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def mobilenet_v2():
    m = ModelBuilder("mobilenet_v2", "keras.applications.mobilenet_v2.MobileNetV2(alpha=1.0, "
                     "include_top=True) (keras/applications/mobilenet_v2.py)",
                     "MobileNetV2 at 224x224, alpha 1.0, with the 1000-class top", IMAGENET)
    m.add("input", name="input", shape=[224, 224, 3])
    m.add("zero_padding2d", name="Conv1_pad", pads=correct_pad(224, 3))
    m.add("conv2d", name="Conv1", filters=32, kernel=[3, 3], strides=[2, 2], use_bias=False)
    m.add("batch_norm", name="bn_Conv1")
    x = m.add("activation", name="Conv1_relu", activation="relu6")
    state = {"size": 112, "channels": 32}

    def block(x, expansion, stride, filters, block_id):
        prefix = "block_%d_" % block_id if block_id else "expanded_conv_"
        in_channels = state["channels"]
        pointwise = make_divisible(filters, 8)
        y = x
        if block_id:
            m.add("conv2d", name=prefix + "expand", inputs=y, filters=expansion * in_channels,
                  kernel=[1, 1], padding="same", use_bias=False)
            m.add("batch_norm", name=prefix + "expand_BN")
            y = m.add("activation", name=prefix + "expand_relu", activation="relu6")
        if stride == 2:
            y = m.add("zero_padding2d", name=prefix + "pad", inputs=y,
                      pads=correct_pad(state["size"], 3))
            state["size"] //= 2
        m.add("depthwise_conv2d", name=prefix + "depthwise", inputs=y, kernel=[3, 3],
              strides=[stride, stride], padding="same" if stride == 1 else "valid",
              use_bias=False)
        m.add("batch_norm", name=prefix + "depthwise_BN")
        m.add("activation", name=prefix + "depthwise_relu", activation="relu6")
        m.add("conv2d", name=prefix + "project", filters=pointwise, kernel=[1, 1],
              padding="same", use_bias=False)
        y = m.add("batch_norm", name=prefix + "project_BN")
        state["channels"] = pointwise
        if in_channels == pointwise and stride == 1:
            return m.add("add", name=prefix + "add", inputs=[x, y])
        return y

    x = block(x, 1, 1, 16, 0)
    block_id = 1
    for filters, stride, repeats in [(24, 2, 2), (32, 2, 3), (64, 2, 4), (96, 1, 3),
                                     (160, 2, 3), (320, 1, 1)]:
        for r in range(repeats):
            x = block(x, 6, stride if r == 0 else 1, filters, block_id)
            block_id += 1
    m.add("conv2d", name="Conv_1", filters=1280, kernel=[1, 1], use_bias=False)
    m.add("batch_norm", name="Conv_1_bn")
    m.add("activation", name="out_relu", activation="relu6")
    m.add("global_avg_pool2d", name="global_average_pooling2d")
    m.add("dense", name="predictions", units=1000, activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def nasnet(name, size, penultimate_filters, num_blocks, stem_filters, skip_reduction):
    """keras/applications/nasnet.py, NASNet-A with the 1000-class top."""
    m = ModelBuilder(name, "keras.applications.nasnet.%s(include_top=True) "
                     "(keras/applications/nasnet.py)" % (
                         "NASNetLarge" if size == 331 else "NASNetMobile"),
                     "NASNet-A at %dx%d with the 1000-class top" % (size, size), IMAGENET)
    shapes = {}  # layer name -> (spatial extent, channels)

    def add(kind, extent, channels, **kw):
        n = m.add(kind, **kw)
        shapes[n] = (extent, channels)
        return n

    def relu(x):
        return add("activation", shapes[x][0], shapes[x][1], inputs=x, activation="relu")

    def bn(x):
        return add("batch_norm", shapes[x][0], shapes[x][1], inputs=x)

    def conv1x1(x, filters, strides=1):
        extent = (shapes[x][0] + strides - 1) // strides
        return add("conv2d", extent, filters, inputs=x, filters=filters, kernel=[1, 1],
                   strides=[strides, strides], padding="same", use_bias=False)

    def sep_block(x, filters, k, stride=1):
        y = relu(x)
        extent = shapes[y][0]
        if stride == 2:
            pads = correct_pad(extent, k)
            y = add("zero_padding2d", extent + pads[0] + pads[1], shapes[y][1], inputs=y,
                    pads=pads)
            extent = (shapes[y][0] - k) // 2 + 1
            padding = "valid"
        else:
            padding = "same"
        y = add("separable_conv2d", extent, filters, inputs=y, filters=filters, kernel=[k, k],
                strides=[stride, stride], padding=padding, use_bias=False)
        y = bn(y)
        y = relu(y)
        y = add("separable_conv2d", extent, filters, inputs=y, filters=filters, kernel=[k, k],
                padding="same", use_bias=False)
        return bn(y)

    def pool(kind, x, k, stride, padding):
        e = shapes[x][0]
        extent = (e + stride - 1) // stride if padding == "same" else (e - k) // stride + 1
        return add(kind, extent, shapes[x][1], inputs=x, kernel=[k, k], strides=[stride, stride],
                   padding=padding)

    def join(kind, xs, channels=None):
        return add(kind, shapes[xs[0]][0], channels or shapes[xs[0]][1], inputs=xs,
                   **({"axis": -1} if kind == "concatenate" else {}))

    def adjust(p, ip, filters):
        if p is None:
            return ip
        if shapes[p][0] != shapes[ip][0]:
            p = relu(p)
            p1 = pool("avg_pool2d", p, 1, 2, "valid")
            p1 = conv1x1(p1, filters // 2)
            e = shapes[p][0]
            p2 = add("zero_padding2d", e + 1, shapes[p][1], inputs=p, pads=[0, 1, 0, 1])
            p2 = add("cropping2d", e, shapes[p][1], inputs=p2, pads=[1, 0, 1, 0])
            p2 = pool("avg_pool2d", p2, 1, 2, "valid")
            p2 = conv1x1(p2, filters // 2)
            p = join("concatenate", [p1, p2], shapes[p1][1] + shapes[p2][1])
            return bn(p)
        if shapes[p][1] != filters:
            p = relu(p)
            p = conv1x1(p, filters)
            return bn(p)
        return p

    def normal_cell(ip, p, filters):
        p = adjust(p, ip, filters)
        h = bn(conv1x1(relu(ip), filters))
        x1 = join("add", [sep_block(h, filters, 5), sep_block(p, filters, 3)])
        x2 = join("add", [sep_block(p, filters, 5), sep_block(p, filters, 3)])
        x3 = join("add", [pool("avg_pool2d", h, 3, 1, "same"), p])
        x4 = join("add", [pool("avg_pool2d", p, 3, 1, "same"), pool("avg_pool2d", p, 3, 1,
                                                                   "same")])
        x5 = join("add", [sep_block(h, filters, 3), h])
        parts = [p, x1, x2, x3, x4, x5]
        return join("concatenate", parts, sum(shapes[q][1] for q in parts)), ip

    def reduction_cell(ip, p, filters):
        p = adjust(p, ip, filters)
        h = bn(conv1x1(relu(ip), filters))
        pads = correct_pad(shapes[h][0], 3)
        h3 = add("zero_padding2d", shapes[h][0] + pads[0] + pads[1], filters, inputs=h, pads=pads)
        x1 = join("add", [sep_block(h, filters, 5, 2), sep_block(p, filters, 7, 2)])
        x2 = join("add", [pool("max_pool2d", h3, 3, 2, "valid"), sep_block(p, filters, 7, 2)])
        x3 = join("add", [pool("avg_pool2d", h3, 3, 2, "valid"), sep_block(p, filters, 5, 2)])
        x4 = join("add", [pool("avg_pool2d", x1, 3, 1, "same"), x2])
        x5 = join("add", [sep_block(x1, filters, 3), pool("max_pool2d", h3, 3, 2, "valid")])
        parts = [x2, x3, x4, x5]
        return join("concatenate", parts, sum(shapes[q][1] for q in parts)), ip

    x = add("input", size, 3, name="input", shape=[size, size, 3])
    x = add("conv2d", (size - 3) // 2 + 1, stem_filters, name="stem_conv1", filters=stem_filters,
            kernel=[3, 3], strides=[2, 2], use_bias=False)
    x = bn(x)
    filters = penultimate_filters // 24
    p = None
    x, p = reduction_cell(x, p, filters // 4)
    x, p = reduction_cell(x, p, filters // 2)
    for _ in range(num_blocks):
        x, p = normal_cell(x, p, filters)
    x, p0 = reduction_cell(x, p, filters * 2)
    p = p if skip_reduction else p0
    for _ in range(num_blocks):
        x, p = normal_cell(x, p, filters * 2)
    x, p0 = reduction_cell(x, p, filters * 4)
    p = p if skip_reduction else p0
    for _ in range(num_blocks):
        x, p = normal_cell(x, p, filters * 4)
    relu(x)
    m.add("global_avg_pool2d", name="global_average_pooling2d")
    m.add("dense", name="predictions", units=1000, activation="softmax")
    m.add("loss", loss="categorical_crossentropy")
    return m


def transformer_block(m, x, d, heads, ffn, prefix, pre_norm, causal=False, dropout=0.1):
    """One encoder/decoder block: attention and MLP, each with a residual connection."""
    if pre_norm:  # GPT-2, ViT: x + attn(ln(x)); x + mlp(ln(x))
        m.add("layer_norm", name=prefix + "ln_1", inputs=x)
        m.add("attention", name=prefix + "attn", heads=heads, causal=causal or None)
        m.add("dropout", name=prefix + "attn_dropout", rate=dropout)
        x = m.add("add", name=prefix + "attn_add", inputs=[x, prefix + "attn_dropout"])
        m.add("layer_norm", name=prefix + "ln_2")
        m.add("dense", name=prefix + "mlp_fc", units=ffn, activation="gelu")
        m.add("dense", name=prefix + "mlp_proj", units=d)
        m.add("dropout", name=prefix + "mlp_dropout", rate=dropout)
        return m.add("add", name=prefix + "mlp_add", inputs=[x, prefix + "mlp_dropout"])
    # BERT: ln(x + attn(x)); ln(x + mlp(x))
    m.add("attention", name=prefix + "attention", inputs=x, heads=heads)
    m.add("dropout", name=prefix + "attention_dropout", rate=dropout)
    m.add("add", name=prefix + "attention_add", inputs=[x, prefix + "attention_dropout"])
    x = m.add("layer_norm", name=prefix + "attention_ln")
    m.add("dense", name=prefix + "intermediate", units=ffn, activation="gelu")
    m.add("dense", name=prefix + "output", units=d)
    m.add("dropout", name=prefix + "output_dropout", rate=dropout)
    m.add("add", name=prefix + "output_add", inputs=[x, prefix + "output_dropout"])
    return m.add("layer_norm", name=prefix + "output_ln")


def bert(name, size, layers, d, heads):
    m = ModelBuilder(name, "Hugging Face transformers BertModel(bert-%s-uncased config: "
                     "vocab 30522, %d layers, hidden %d, %d heads, intermediate %d, 512 "
                     "positions), pooler included" % (size, layers, d, heads, 4 * d),
                     "BERT-%s encoder with pooler. The loss on the "
                     "pooled output stands in for a task head (a k-class head adds "
                     "%dk parameters); sequence length is --param seq_len=N" % (size, d + 1),
                     dict(optimizer="adam", batch=32, samples=0, val_samples=0),
                     parameters={"seq_len": 128})
    m.add("input", name="input_ids", shape=["$seq_len"], dtype="int32")
    m.add("input", name="token_type_ids", shape=["$seq_len"], dtype="int32")
    m.add("input", name="position_ids", shape=["$seq_len"], dtype="int32")
    m.add("embedding", name="word_embeddings", inputs="input_ids", vocab=30522, units=d)
    m.add("embedding", name="position_embeddings", inputs="position_ids", vocab=512, units=d)
    m.add("embedding", name="token_type_embeddings", inputs="token_type_ids", vocab=2, units=d)
    m.add("add", name="embeddings_sum", inputs=["word_embeddings", "position_embeddings",
                                                "token_type_embeddings"])
    m.add("layer_norm", name="embeddings_ln")
    x = m.add("dropout", name="embeddings_dropout", rate=0.1)
    for i in range(layers):
        x = transformer_block(m, x, d, heads, 4 * d, "layer%d_" % i, pre_norm=False)
    m.add("slice", name="first_token", axis=0, start=0, end=1)
    m.add("reshape", name="pooler_in", target_shape=[d])
    m.add("dense", name="pooler", units=d, activation="tanh")
    m.add("loss", loss="mse")
    return m


def gpt2(name, config, size, layers, d, heads):
    m = ModelBuilder(name, "Hugging Face transformers GPT2LMHeadModel(%s config: vocab "
                     "50257, 1024 positions, %d layers, %d wide, %d heads), LM head tied to wte"
                     % (config, layers, d, heads),
                     "GPT-2 %s language model (the LM head shares the "
                     "token embedding); sequence length is --param seq_len=N" % size,
                     dict(optimizer="adam", batch=8, samples=0, val_samples=0),
                     parameters={"seq_len": 1024})
    m.add("input", name="input_ids", shape=["$seq_len"], dtype="int32")
    m.add("input", name="position_ids", shape=["$seq_len"], dtype="int32")
    m.add("embedding", name="wte", inputs="input_ids", vocab=50257, units=d)
    m.add("embedding", name="wpe", inputs="position_ids", vocab=1024, units=d)
    m.add("add", name="embeddings_sum", inputs=["wte", "wpe"])
    x = m.add("dropout", name="embeddings_dropout", rate=0.1)
    for i in range(layers):
        x = transformer_block(m, x, d, heads, 4 * d, "h%d_" % i, pre_norm=True, causal=True)
    m.add("layer_norm", name="ln_f")
    m.add("dense", name="lm_head", units=50257, use_bias=False, shared_weights="wte")
    m.add("loss", loss="sparse_softmax_cross_entropy")
    return m


def vit(name, torchvision, title, layers, d, heads, mlp):
    m = ModelBuilder(name, "torchvision.models.%s() (torchvision/models/"
                     "vision_transformer.py), 1000-class head" % torchvision,
                     "%s at 224x224: 16x16 patches, %d layers, %d wide, %d heads"
                     % (title, layers, d, heads),
                     IMAGENET)
    m.add("input", name="input", shape=[3, 224, 224])
    m.add("conv2d", name="conv_proj", filters=d, kernel=[16, 16], strides=[16, 16],
          channels_first=True)
    m.add("reshape", name="patches", target_shape=[d, 196])
    m.add("transpose", name="tokens", perm=[1, 0])
    m.add("class_token", name="class_token")
    m.add("position_embedding", name="pos_embedding")
    x = m.add("dropout", name="embedding_dropout", rate=0.0)
    for i in range(layers):
        x = transformer_block(m, x, d, heads, mlp, "encoder_layer_%d_" % i, pre_norm=True,
                              dropout=0.0)
    m.add("layer_norm", name="encoder_ln")
    m.add("slice", name="class_out", axis=0, start=0, end=1)
    m.add("reshape", name="head_in", target_shape=[d])
    m.add("dense", name="head", units=1000)
    m.add("loss", loss="softmax_cross_entropy")
    return m


MODELS = [
    mnist_mlp, mnist_cnn, cifar10_cnn, imdb_fasttext, imdb_bidirectional_lstm,
    lstm_text_generation, text_generator_keras, lstm_char_cnn, vgg16,
    lambda: resnet("resnet50", [3, 4, 6, 3]),
    lambda: resnet("resnet50_v1_5", [3, 4, 6, 3], v1_5=True),
    lambda: resnet("resnet152", [3, 8, 36, 3]),
    mobilenet_v2,
    lambda: nasnet("nasnet_mobile", 224, 1056, 4, 32, False),
    lambda: nasnet("nasnet_large", 331, 4032, 6, 96, True),
    lambda: bert("bert_base", "base", 12, 768, 12),
    lambda: bert("bert_large", "large", 24, 1024, 16),
    lambda: gpt2("gpt2_small", "gpt2", "small", 12, 768, 12),
    lambda: gpt2("gpt2_medium", "gpt2-medium", "medium", 24, 1024, 16),
    lambda: gpt2("gpt2_large", "gpt2-large", "large", 36, 1280, 20),
    lambda: gpt2("gpt2_xl", "gpt2-xl", "XL", 48, 1600, 25),
    lambda: vit("vit_b16", "vit_b_16", "ViT-B/16", 12, 768, 12, 3072),
    lambda: vit("vit_l16", "vit_l_16", "ViT-L/16", 24, 1024, 16, 4096),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    for make in MODELS:
        m = make()
        m.write(os.path.join(OUT, m.doc["name"] + ".json"))
        print("wrote", m.doc["name"], len(m.layers), "layers")


if __name__ == "__main__":
    main()
