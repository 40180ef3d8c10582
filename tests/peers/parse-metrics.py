"""Parses Prometheus text format from stdin with the Prometheus project's
own parser (prometheus_client) and prints the families as JSON:
{name: {"type": ..., "samples": [{"name", "labels", "value"}]}}.
A text the parser refuses exits non-zero with its error."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

families = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    families[family.name] = {
        "type": family.type,
        "samples": [
            {"name": s.name, "labels": s.labels, "value": s.value}
            for s in family.samples
        ],
    }
json.dump(families, sys.stdout)
