"""A small builder for epochcost model files (docs/model-format.md).

Layers are appended in order; a layer reads the previous one unless `inputs` says otherwise.
Names default to Keras's style (conv2d_1, dense_2, ...). `write()` emits the JSON the zoo ships.
"""
import collections
import json


class ModelBuilder:
    def __init__(self, name, source, description, training=None, parameters=None):
        self.doc = collections.OrderedDict(
            format="epochcost-model", version=1, name=name, description=description,
            source=source)
        if parameters:
            self.doc["parameters"] = parameters
        if training:
            self.doc["training"] = training
        self.layers = []
        self.counters = collections.Counter()
        self.last = None

    def add(self, kind, name=None, inputs=None, **attrs):
        if name is None:
            self.counters[kind] += 1
            name = "%s_%d" % (kind, self.counters[kind])
        layer = collections.OrderedDict(name=name, kind=kind)
        if inputs is not None:
            layer["inputs"] = inputs if isinstance(inputs, list) else [inputs]
        elif kind != "input" and self.last is not None:
            layer["inputs"] = [self.last]
        for k, v in attrs.items():
            if v is not None:
                layer[k] = v
        self.layers.append(layer)
        self.last = name
        return name

    def write(self, path):
        self.doc["layers"] = self.layers
        with open(path, "w") as f:
            # One layer per line keeps diffs of the zoo readable.
            f.write("{\n")
            items = [(k, v) for k, v in self.doc.items() if k != "layers"]
            for k, v in items:
                f.write('  %s: %s,\n' % (json.dumps(k), json.dumps(v)))
            f.write('  "layers": [\n')
            f.write(",\n".join("    " + json.dumps(l) for l in self.layers))
            f.write("\n  ]\n}\n")
