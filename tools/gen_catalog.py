#!/usr/bin/env python3
"""gen_catalog.py - build catalog/data/*.json (embedded into mlsysd) from the
reference extraction of mlsysim's registries.

Where the data comes from: ../shared/reference/catalog.json, a machine-readable
read of the mlsysim package (harvard-edge/cs249r_book, mlsysim/mlsysim/:
hardware/data/**/*.yaml, models/data/*.yaml, systems/registry.py,
systems/reliability.py, infrastructure/{registry,pricing,capacity}.py,
infrastructure/data/grids.yaml, datasets/data/*.yaml and the legacy Python
registries hardware/registry.py @1eb30f5f, models/registry.py @84b2db38).
Every entry keeps "provenance" where the reference has one and gets a
"source" (the upstream file and commit it was read at; the reference records
it per entry for hardware, models and datasets and per file for the rest), so
/catalog can say where each number came from.

What we write, one file per kind of the catalog's kinds table (catalog/kinds.c),
each {"about", ["aliases": {"<kind>": {...}},] "<kind>": [entries]} in
catalog.json order, indent 1:
  hardware.json (45), models.json (33)       top-level "hardware" / "models"
  nodes.json (3), fabrics.json (10), clusters.json (7), pods.json (1)
                                             "systems" entries of that kind
  grids.json (12), cooling.json (6), datacenters.json (7), racks.json (3)
                                             "infrastructure" entries
  datasets.json (8)                          top-level "datasets"
  reliability.json (12)  systems reliability_component (group "Components",
                         MTTF in mttf_hours), reliability_scalar ("Scalars"),
                         recovery_profile ("Recovery")
  prices.json (25)       infrastructure price; key "<namespace>.<key>" (two
                         namespaces both have ElectricityPerKwh), group = namespace
  network.json (11)      systems switch_fabric_scalar (group "SwitchFabric") and
                         network_energy_scalar ("NetworkEnergy")
  infrastructure.json (4) infrastructure capacity ("Capacity") and the module
                         scalar AIR_COOLING_LIMIT_KW ("Limits")
  edition_tutorial.json  verbatim copy of edition_tutorial.json
Each entry is the TOP-LEVEL value set (the newest upstream version) with
"variants" (older versions), "lowered" (derived ComputationGraph numbers) and
"kind" (the file says it) dropped; every other field, with its unit, stays.
Units: quantities are {"value", "unit", "si", "si_unit"}; plain numbers carry
their unit in the field name (carbon_intensity_g_kwh, mttf_hours, power_si_W,
*_s) or in a "unit" member beside "value". Left out: the one "unresolved"
systems entry (Systems.Orchestration, not read upstream).
The legacy alias tables (hardware_aliases / model_aliases, e.g.
"Hardware.A100" -> "Cloud.A100") are resolved to full mlsysim paths; aliases
whose target is not an entry of that registry (e.g. "Hardware.Networks" ->
"Systems.Fabrics") are left out.

Usage: tools/gen_catalog.py [path/to/catalog.json]
(default ../shared/reference/catalog.json relative to the repo root; the
overlay is read from edition_tutorial.json next to it).
"""
import json
import os
import shutil
import sys

import cnn_shapes  # tools/cnn_shapes.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DROP = ("variants", "lowered", "kind")
PKG = "mlsysim/mlsysim/"

# kind of the catalog -> (reference section, reference kinds (None: the
# section is a list of entries of this kind), group per reference kind or None)
KINDS = [
    ("hardware", "hardware", None, None),
    ("models", "models", None, None),
    ("grids", "infrastructure", ["grid"], None),
    ("cooling", "infrastructure", ["cooling"], None),
    ("datacenters", "infrastructure", ["datacenter"], None),
    ("racks", "infrastructure", ["rack"], None),
    ("nodes", "systems", ["node"], None),
    ("fabrics", "systems", ["fabric"], None),
    ("clusters", "systems", ["cluster"], None),
    ("datasets", "datasets", None, None),
    ("reliability", "systems", ["reliability_component", "reliability_scalar", "recovery_profile"],
     {"reliability_component": "Components", "reliability_scalar": "Scalars",
      "recovery_profile": "Recovery"}),
    ("prices", "infrastructure", ["price"], "namespace"),
    ("network", "systems", ["switch_fabric_scalar", "network_energy_scalar"],
     {"switch_fabric_scalar": "SwitchFabric", "network_energy_scalar": "NetworkEnergy"}),
    ("pods", "systems", ["pod"], None),
    ("infrastructure", "infrastructure", ["capacity", "scalar"],
     {"capacity": "Capacity", "scalar": "Limits"}),
]

# The upstream file each reference kind was read from (the commit is looked
# up in catalog.json "sources").
SOURCE_FILE = {
    "node": "systems/registry.py", "fabric": "systems/registry.py",
    "cluster": "systems/registry.py", "pod": "systems/registry.py",
    "switch_fabric_scalar": "systems/registry.py", "network_energy_scalar": "systems/registry.py",
    "reliability_component": "systems/reliability.py", "reliability_scalar": "systems/reliability.py",
    "recovery_profile": "systems/reliability.py",
    "grid": "infrastructure/data/grids.yaml", "cooling": "infrastructure/registry.py",
    "datacenter": "infrastructure/registry.py", "rack": "infrastructure/registry.py",
    "scalar": "infrastructure/registry.py", "price": "infrastructure/pricing.py",
    "capacity": "infrastructure/capacity.py",
}


def resolve_aliases(table, entries, prefix):
    ids = {e["id"] for e in entries}
    out = {}
    for alias, target in table.get("aliases", {}).items():
        full = target if target.startswith(prefix + ".") else prefix + "." + target
        if full in ids:
            out[alias] = full
    return out


def source_of(cat, ref_kind):
    path = PKG + SOURCE_FILE[ref_kind]
    commit = str(cat.get("sources", {}).get(path, "?")).split()[0]
    return {"path": path, "commit": commit}


def entries_of(cat, section, ref_kinds, group):
    out = []
    for e in cat[section]:
        rk = e.get("kind")
        if ref_kinds is not None and rk not in ref_kinds:
            continue
        n = {}
        if group == "namespace":
            n["group"] = e["namespace"]
        elif group is not None:
            n["group"] = group[rk]
        for k, v in e.items():
            if k in DROP:
                continue
            if k == "key" and group == "namespace":
                v = e["namespace"] + "." + v
            n[k] = v
        if "source" not in n and rk in SOURCE_FILE:
            n["source"] = source_of(cat, rk)
        out.append(n)
    keys = [e["key"].lower() for e in out]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        sys.exit("gen_catalog: duplicate keys in %s: %s" % (section, sorted(dup)))
    return out


def about(meta, src_rel, kind, section, ref_kinds, alias_table):
    what = "the top-level (newest upstream) values of each entry"
    if ref_kinds:
        what += " of the %s entries of kind %s" % (section, ", ".join(ref_kinds))
    a = {
        "generated_by": "tools/gen_catalog.py",
        "from": src_rel,
        "package": meta.get("package"),
        "repository": meta.get("repository"),
        "package_path": meta.get("package_path"),
        "content": kind + ": " + what + "; 'variants', derived 'lowered' and 'kind' dropped. "
                   "Each entry's 'source' names the upstream file and commit it was read at.",
    }
    if alias_table is not None:
        a["aliases_from"] = "legacy Python registry @" + str(alias_table.get("commit", "?"))
    return a


def write(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def main():
    default = os.path.join(ROOT, "..", "shared", "reference", "catalog.json")
    src = sys.argv[1] if len(sys.argv) > 1 else default
    src = os.path.abspath(src)
    with open(src, encoding="utf-8") as f:
        cat = json.load(f)
    try:
        src_rel = os.path.relpath(src, ROOT)
    except ValueError:
        src_rel = src
    meta = cat.get("meta", {})
    outdir = os.path.join(ROOT, "catalog", "data")
    os.makedirs(outdir, exist_ok=True)

    alias_tables = {"hardware": ("hardware_aliases", "Hardware"), "models": ("model_aliases", "Models")}
    counts = []
    for kind, section, ref_kinds, group in KINDS:
        entries = entries_of(cat, section, ref_kinds, group)
        doc = {}
        table = None
        if kind in alias_tables:
            table = cat.get(alias_tables[kind][0], {})
        doc["about"] = about(meta, src_rel, kind, section, ref_kinds, table)
        if table is not None:
            doc["aliases"] = {kind: resolve_aliases(table, entries, alias_tables[kind][1])}
        doc[kind] = entries
        write(os.path.join(outdir, kind + ".json"), doc)
        counts.append("%d %s" % (len(entries), kind))
    # Layer-shape counts of the image CNNs (measured mode's physics), not in the reference.
    cnn_shapes.patch(os.path.join(outdir, "models.json"))
    overlay = os.path.join(os.path.dirname(src), "edition_tutorial.json")
    shutil.copyfile(overlay, os.path.join(outdir, "edition_tutorial.json"))
    print("wrote %s, edition_tutorial.json into %s" % (", ".join(counts), os.path.relpath(outdir, ROOT)))


if __name__ == "__main__":
    main()
