#!/usr/bin/env python3
"""Writes fuzz/dict/NAME.dict for each seed corpus in fuzz/corpus/NAME: JSON syntax plus the keys
and short string values of the JSON seeds, or the header words of the CSV seeds (the words of
the command-line seeds). libFuzzer splices these tokens into inputs (-dict=), which reaches the
code behind each key much sooner than byte flips do. Run from the repository root."""
import csv
import glob
import io
import json
import os

JSON_SYNTAX = ['{', '}', '[', ']', ':', ',', 'true', 'false', 'null', '\\"', '-1', '0', '1e308',
               'NaN', '1.5']


def json_tokens(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            json_tokens(v, out)
    elif isinstance(value, list):
        for v in value:
            json_tokens(v, out)
    elif isinstance(value, str) and len(value) < 24:
        out.add(value)


def main():
    for folder in sorted(glob.glob('fuzz/corpus/*/')):
        name = os.path.basename(folder.rstrip('/'))
        tokens, is_json = set(), False
        for path in glob.glob(folder + '*'):
            data = open(path, 'rb').read()
            try:
                json_tokens(json.loads(data), tokens)
                is_json = True
                continue
            except ValueError:
                pass
            try:
                text = data.decode()
            except UnicodeDecodeError:
                continue  # ONNX protobuf: no dictionary
            if name == 'command_line_fuzzer':
                for word in text[1:].split():
                    tokens.add(word.split('=')[0] + ('=' if '=' in word else ''))
            else:
                for row in list(csv.reader(io.StringIO(text)))[:1]:
                    tokens.update(row)
        printable = sorted(t for t in tokens
                           if t and '\\' not in t and all(32 <= ord(c) < 127 for c in t))
        if not printable:
            continue
        if is_json:
            lines = [f'# Tokens of {name}: JSON syntax and the keys and short values of its seeds.']
            lines += [json.dumps(t) for t in JSON_SYNTAX]
            lines += [json.dumps(json.dumps(t)) for t in printable]
        else:
            lines = [f'# Tokens of {name}: the words of its seeds.']
            lines += [json.dumps(t) for t in printable]
        with open(f'fuzz/dict/{name}.dict', 'w') as out:
            out.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
