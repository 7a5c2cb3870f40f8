#!/usr/bin/env python3
"""Test tool: parses a Prometheus text-format file with prometheus_client's own parser
(Debian's python3-prometheus-client) and prints what it read as one JSON object:
{"types": {family: type}, "samples": {"name{label=\"v\",...}": value}}. A file the parser
refuses exits 1 with its message; a missing parser exits 3."""
import json
import math
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("prometheus_client is not installed (apt-get install -y python3-prometheus-client)", file=sys.stderr)
    sys.exit(3)

if len(sys.argv) != 2:
    print("usage: parse-metrics.py FILE", file=sys.stderr)
    sys.exit(2)
with open(sys.argv[1], encoding="utf-8") as f:
    text = f.read()
types, samples = {}, {}
try:
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for s in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            key = s.name + ("{" + labels + "}" if labels else "")
            if key in samples:
                raise ValueError(f"sample {key} appears twice")
            samples[key] = None if math.isnan(s.value) else s.value
except ValueError as e:
    print(f"not Prometheus text format: {e}", file=sys.stderr)
    sys.exit(1)
print(json.dumps({"types": types, "samples": samples}))
