#!/usr/bin/env python3
"""gen_catalog.py - build catalog/data/*.json (embedded into mlsysd) from the
reference extraction of mlsysim's registries.

Where the data comes from: ../shared/reference/catalog.json, a machine-readable
read of the mlsysim package (harvard-edge/cs249r_book, mlsysim/mlsysim/:
hardware/data/**/*.yaml, models/data/*.yaml and the legacy Python registries
hardware/registry.py @1eb30f5f, models/registry.py @84b2db38). Every entry there
records the upstream file and commit it was read at ("source"); we keep that,
and "provenance", so /catalog can say where each number came from.

What we write (stable order = catalog.json order, indent 1):
  catalog/data/hardware.json  {"about", "aliases": {"hardware": {...}}, "hardware": [45]}
  catalog/data/models.json    {"about", "aliases": {"models": {...}},   "models":   [33]}
  catalog/data/edition_tutorial.json  verbatim copy of edition_tutorial.json
Each entry is the TOP-LEVEL value set (the newest upstream version) with
"variants" (older versions) and "lowered" (derived ComputationGraph numbers)
dropped; every other field, with its unit, stays. The legacy alias tables
(hardware_aliases / model_aliases, e.g. "Hardware.A100" -> "Cloud.A100") are
resolved to full mlsysim paths; aliases whose target is not an entry of that
registry (e.g. "Hardware.Networks" -> "Systems.Fabrics") are left out.

Usage: tools/gen_catalog.py [path/to/catalog.json]
(default ../shared/reference/catalog.json relative to the repo root; the
overlay is read from edition_tutorial.json next to it).
"""
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DROP = ("variants", "lowered")


def resolve_aliases(table, entries, prefix):
    ids = {e["id"] for e in entries}
    out = {}
    for alias, target in table.get("aliases", {}).items():
        full = target if target.startswith(prefix + ".") else prefix + "." + target
        if full in ids:
            out[alias] = full
    return out


def about(meta, src_rel, what, alias_table):
    return {
        "generated_by": "tools/gen_catalog.py",
        "from": src_rel,
        "package": meta.get("package"),
        "repository": meta.get("repository"),
        "package_path": meta.get("package_path"),
        "content": what + ": the top-level (newest upstream) values of each entry; "
                   "'variants' and derived 'lowered' dropped. Each entry's 'source' names "
                   "the upstream file and commit it was read at.",
        "aliases_from": "legacy Python registry @" + str(alias_table.get("commit", "?")),
    }


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

    hw = [{k: v for k, v in e.items() if k not in DROP} for e in cat["hardware"]]
    models = [{k: v for k, v in e.items() if k not in DROP} for e in cat["models"]]

    write(os.path.join(outdir, "hardware.json"), {
        "about": about(meta, src_rel, "mlsysim Hardware registry", cat.get("hardware_aliases", {})),
        "aliases": {"hardware": resolve_aliases(cat.get("hardware_aliases", {}), hw, "Hardware")},
        "hardware": hw,
    })
    write(os.path.join(outdir, "models.json"), {
        "about": about(meta, src_rel, "mlsysim Models registry", cat.get("model_aliases", {})),
        "aliases": {"models": resolve_aliases(cat.get("model_aliases", {}), models, "Models")},
        "models": models,
    })
    overlay = os.path.join(os.path.dirname(src), "edition_tutorial.json")
    shutil.copyfile(overlay, os.path.join(outdir, "edition_tutorial.json"))
    print("wrote %d hardware, %d models, edition_tutorial.json into %s"
          % (len(hw), len(models), os.path.relpath(outdir, ROOT)))


if __name__ == "__main__":
    main()
