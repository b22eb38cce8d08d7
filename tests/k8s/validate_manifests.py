#!/usr/bin/python3
"""validate_manifests.py — check Kubernetes manifests against the kubernetes client's models.

Usage: validate_manifests.py [--yaml STREAM.yaml] PATH...
  PATH is a .json file (one object, a JSON list of objects, or a kind: List) or a directory of
  them. Each object is checked recursively against the kubernetes Python client's model
  definitions (openapi_types / attribute_map of V1Pod, V1Service, V1ConfigMap, V1Secret, ...):
  every key must be a known field, every value must have the declared type (str, int, bool,
  list, dict, model), and fields the model requires must be present; scalar values are also
  passed through the model's setters, so any client-side validation (enums, patterns) applies.
  A few API-server rules the schema cannot express are checked too (volumeMounts refer to
  volumes, unique container/volume/env/port names, port names <= 15 characters, DNS names).
  --yaml also parses a multi-document YAML stream (cspark's dry-run output) and requires it to
  hold exactly the same objects as the JSON files, in order.
Exits 0 when everything is valid, 1 naming each bad path (e.g.
`Pod.spec.containers[0].resurces: unknown field`), 2 on usage errors.
Run with /usr/bin/python3 (Debian's python3-kubernetes).
"""
import json
import os
import re
import sys

from kubernetes import client
from kubernetes.client import Configuration

KINDS = {
    "Pod": "V1Pod",
    "Service": "V1Service",
    "ConfigMap": "V1ConfigMap",
    "Secret": "V1Secret",
    "PersistentVolumeClaim": "V1PersistentVolumeClaim",
    "Namespace": "V1Namespace",
}

_CONF = Configuration()
_CONF.client_side_validation = True
_required_cache = {}
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def model_class(name):
    return getattr(client, name, None) or getattr(client.models, name, None)


def blank(cls):
    obj = cls.__new__(cls)
    obj.local_vars_configuration = _CONF
    return obj


def required_fields(cls):
    """Attributes whose setter refuses None under client-side validation."""
    if cls not in _required_cache:
        req = set()
        obj = blank(cls)
        for attr in cls.openapi_types:
            try:
                setattr(obj, attr, None)
            except ValueError as e:
                if "must not be `None`" in str(e):
                    req.add(attr)
        _required_cache[cls] = req
    return _required_cache[cls]


def type_name(v):
    return {dict: "object", list: "list", str: "string", bool: "bool", int: "int",
            float: "float", type(None): "null"}.get(type(v), type(v).__name__)


class Validator:
    def __init__(self):
        self.errors = []

    def err(self, path, msg):
        self.errors.append(f"{path}: {msg}")

    def check_type(self, path, tname, value):
        if value is None:
            return  # null is allowed for any optional field (required ones are checked separately)
        if tname == "object":
            return
        if tname == "str" or tname in ("datetime", "date"):
            if not isinstance(value, str):
                self.err(path, f"expected a string, got {type_name(value)} {value!r}")
            return
        if tname == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                self.err(path, f"expected an integer, got {type_name(value)} {value!r}")
            return
        if tname == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.err(path, f"expected a number, got {type_name(value)} {value!r}")
            return
        if tname == "bool":
            if not isinstance(value, bool):
                self.err(path, f"expected a boolean, got {type_name(value)} {value!r}")
            return
        m = re.fullmatch(r"list\[(.*)\]", tname)
        if m:
            if not isinstance(value, list):
                self.err(path, f"expected a list, got {type_name(value)}")
                return
            for i, item in enumerate(value):
                self.check_type(f"{path}[{i}]", m.group(1), item)
            return
        m = re.fullmatch(r"dict\(str, (.*)\)", tname)
        if m:
            if not isinstance(value, dict):
                self.err(path, f"expected a map, got {type_name(value)}")
                return
            for k, item in value.items():
                self.check_type(f"{path}.{k}", m.group(1), item)
            return
        cls = model_class(tname)
        if cls is None:
            self.err(path, f"validator does not know type {tname}")
            return
        self.check_model(path, cls, value)

    def check_model(self, path, cls, value):
        if not isinstance(value, dict):
            self.err(path, f"expected an object ({cls.__name__}), got {type_name(value)}")
            return
        json_to_attr = {j: a for a, j in cls.attribute_map.items()}
        for key, item in value.items():
            attr = json_to_attr.get(key)
            if attr is None:
                self.err(f"{path}.{key}", "unknown field")
                continue
            tname = cls.openapi_types[attr]
            self.check_type(f"{path}.{key}", tname, item)
            if tname in ("str", "int", "bool", "float") and item is not None:
                try:  # the model's own client-side validation (enums, patterns)
                    setattr(blank(cls), attr, item)
                except ValueError as e:
                    self.err(f"{path}.{key}", str(e))
        for attr in sorted(required_fields(cls)):
            key = cls.attribute_map[attr]
            if value.get(key) is None:
                self.err(f"{path}.{key}", "required field missing")

    # ---- rules the schema cannot express ------------------------------------------------------

    def unique(self, path, items, field):
        seen = set()
        for i, it in enumerate(items or []):
            if isinstance(it, dict) and field in it:
                if it[field] in seen:
                    self.err(f"{path}[{i}].{field}", f"duplicate {field} {it[field]!r}")
                seen.add(it[field])

    def check_meta(self, kind, meta):
        name = meta.get("name") if isinstance(meta, dict) else None
        if not isinstance(name, str) or not name:
            self.err(f"{kind}.metadata.name", "required field missing")
            return
        if kind == "Service":
            if not _DNS_LABEL.match(name) or len(name) > 63:
                self.err(f"{kind}.metadata.name", f"{name!r} is not a DNS-1123 label (<= 63)")
        elif not _DNS_SUBDOMAIN.match(name) or len(name) > 253:
            self.err(f"{kind}.metadata.name", f"{name!r} is not a DNS-1123 subdomain (<= 253)")
        for k, v in (meta.get("labels") or {}).items():
            if not isinstance(v, str) or len(v) > 63 or not _LABEL_VALUE.match(v):
                self.err(f"{kind}.metadata.labels.{k}", f"invalid label value {v!r}")

    def check_pod(self, obj):
        spec = obj.get("spec") or {}
        vols = {v.get("name") for v in spec.get("volumes") or [] if isinstance(v, dict)}
        self.unique("Pod.spec.volumes", spec.get("volumes"), "name")
        self.unique("Pod.spec.containers", spec.get("containers"), "name")
        for ci, c in enumerate(spec.get("containers") or []):
            base = f"Pod.spec.containers[{ci}]"
            if not isinstance(c, dict):
                continue
            self.unique(f"{base}.env", c.get("env"), "name")
            self.unique(f"{base}.ports", c.get("ports"), "name")
            self.unique(f"{base}.volumeMounts", c.get("volumeMounts"), "mountPath")
            for mi, m in enumerate(c.get("volumeMounts") or []):
                if isinstance(m, dict) and m.get("name") not in vols:
                    self.err(f"{base}.volumeMounts[{mi}].name",
                             f"no volume named {m.get('name')!r} in spec.volumes")
            for pi, p in enumerate(c.get("ports") or []):
                n = p.get("name") if isinstance(p, dict) else None
                if n is not None and (len(n) > 15 or not re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", n)):
                    self.err(f"{base}.ports[{pi}].name", f"{n!r} is not an IANA service name (<= 15)")
        hn = spec.get("hostname")
        if hn is not None and (not isinstance(hn, str) or len(hn) > 63 or not _DNS_LABEL.match(hn)):
            self.err("Pod.spec.hostname", f"{hn!r} is not a DNS-1123 label")

    def check_object(self, obj, where):
        if not isinstance(obj, dict):
            self.err(where, f"expected an object, got {type_name(obj)}")
            return
        kind = obj.get("kind")
        if kind not in KINDS:
            self.err(f"{where}.kind", f"unsupported or missing kind {kind!r}")
            return
        if obj.get("apiVersion") != "v1":
            self.err(f"{kind}.apiVersion", f"expected 'v1', got {obj.get('apiVersion')!r}")
        self.check_model(kind, model_class(KINDS[kind]), obj)
        self.check_meta(kind, obj.get("metadata"))
        if kind == "Pod":
            self.check_pod(obj)


def load_objects(paths):
    objs = []
    for p in paths:
        files = sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".json")) \
            if os.path.isdir(p) else [p]
        for f in files:
            with open(f, encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict) and data.get("kind") == "List":
                data = data.get("items", [])
            for i, o in enumerate(data if isinstance(data, list) else [data]):
                objs.append((f"{os.path.basename(f)}[{i}]" if isinstance(data, list) else os.path.basename(f), o))
    return objs


def main(argv):
    yaml_path = None
    args = list(argv[1:])
    if len(args) >= 2 and args[0] == "--yaml":
        yaml_path = args[1]
        args = args[2:]
    if not args:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        objs = load_objects(args)
    except (OSError, ValueError) as e:
        print(f"validate_manifests: {e}", file=sys.stderr)
        return 2
    v = Validator()
    for where, o in objs:
        v.check_object(o, where)
    if yaml_path:
        import yaml
        with open(yaml_path, encoding="utf-8") as fh:
            docs = [d for d in yaml.safe_load_all(fh)]
        want = [o for _, o in objs]
        if docs != want:
            v.err(yaml_path, f"YAML stream differs from the JSON manifests "
                             f"({len(docs)} vs {len(want)} documents)")
    for e in v.errors:
        print(e)
    if v.errors:
        print(f"validate_manifests: {len(v.errors)} problem(s) in {len(objs)} object(s)", file=sys.stderr)
        return 1
    print(f"validate_manifests: {len(objs)} object(s) valid")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
