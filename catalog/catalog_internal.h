/* catalog_internal.h - shared between the catalog's own files (not an API).
 *
 * The files, bottom up (each calls only files listed before it):
 *   textpos.c   where something is in a catalog file (error messages)
 *   field.c     one field: units, quantities, the messages naming a field
 *   summary.c   list views of entries
 *   kinds.c     the data: the table of kinds (catalog_kind), each kind's
 *               field table (fspec), i.e. the format of catalog entries,
 *               and the kind accessors of catalog.h; the table points at
 *               the list views of hardware and workloads
 *   entry.c     reading an entry into its record (cat_extract)
 *   merge.c     laying override fields over an entry (cat_merge)
 *   edition.c   an edition's entries, records, index and accessors (edition.h)
 *   hf_config.c a model entry computed from a Hugging Face config.json
 *   resolve.c   ids and inline entries resolved in an edition; suggestions
 *   catalog.c   loading: embedded files, the tutorial overlay, --catalog-dir */
#ifndef MLSYSD_CATALOG_INTERNAL_H
#define MLSYSD_CATALOG_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog.h"
#include "core/fleet.h"

/* ---- the entry format ---------------------------------------------------- */

typedef enum {
    T_QTY,   /* quantity of the field's unit: {"value","unit"[,"si","si_unit"]}, "80 GiB" or SI number */
    T_QANY,  /* quantity of any unit, display only: {"value","unit","si","si_unit"} */
    T_INT,   /* whole number >= fspec.imin                                 */
    T_NUM,   /* plain number (its unit, if any, is in the field's name)     */
    T_STR,   /* string                                                     */
    T_BOOL,
    T_OBJ,   /* nested object with its own field table, or null            */
    T_QMAP,  /* object of name -> flop/s quantity (precision_flops)        */
    T_REF,   /* an entry of another kind: an id or an inline object        */
    T_ANY    /* kept for display, not interpreted (provenance, source)     */
} ftype;

typedef enum { U_NONE, U_FLOPS, U_FLOP, U_B, U_BPS, U_S, U_W, U_J, U_USD, U_COUNT, U_HZ } ukind;

/* Slots of the hardware and workload readers (entry.c: fill_hardware,
 * fill_model), which check more than one field at a time; the other kinds
 * store each field at its offset in the record (fspec.at). S_KEY..S_GROUP
 * serve every kind. */
enum {
    S_NONE = 0,
    S_KEY, S_ID, S_NAME, S_GROUP, S_YEAR,
    S_PEAK, S_MEM_CAP, S_MEM_BW, S_SRAM_CAP, S_SRAM_BW, S_FLASH_CAP, S_FLASH_BW,
    S_STORAGE, S_STO_CAP, S_STO_BW,
    S_IC, S_IC_NAME, S_IC_BW,
    S_NV, S_NV_BW, S_NV_LAT,
    S_TDP, S_COST, S_DISPATCH,
    S_TYPE, S_ARCH, S_PARAMS, S_FLOPS, S_SIZE, S_ACTIVE,
    S_LAYERS, S_HIDDEN, S_HEADS, S_KV_HEADS, S_KV_LORA, S_QK_ROPE, S_EXPERTS, S_ACTIVE_EXPERTS, S_STATE, S_DENOISE,
    S_ARCH_FLOPS, S_ACT_ELEMS, S_ARCH_LAYERS,
    S_HEAD_DIM, S_SLIDING, S_EMBED_PARAMS, S_VISION_PARAMS, S_HF_TYPE,
    S__N
};

typedef struct fspec {
    const char *name;
    ftype type;
    ukind unit;                    /* T_QTY                                       */
    int slot;                      /* S_* (hardware, models, and every kind's ids) */
    const struct fspec *sub;       /* T_OBJ                                       */
    const char *const *choices;    /* T_STR with a closed set of values           */
    size_t at;                     /* 1 + offset of the value in the record; 0 = not stored there */
    size_t size;                   /* T_STR stored at `at`: the buffer size       */
    size_t has_at;                 /* T_REF that may be null: 1 + offset of its bool "given" flag */
    record_kind ref;               /* T_REF: the kind it refers to                */
    bool required;
    bool summary;                  /* one of the kind's key figures in list views */
    int imin;                      /* T_INT: smallest value                       */
    int idef;                      /* T_INT stored at `at`: value when absent     */
    double def;                    /* T_QTY/T_NUM stored at `at`: value when absent (NAN = None) */
    const char *def_str;           /* T_STR stored at `at`: value when absent     */
} fspec;

/* One row of the kinds table (kinds.c). */
struct catalog_kind {
    const char *plural;       /* "fabrics": /catalog/fabrics, the section of catalog files */
    const char *singular;     /* "fabric": messages                                        */
    const char *overlay;      /* dotted member of an edition overlay file with this kind's changes */
    const char *id_prefix;    /* mlsysim path of a new entry: <prefix>.<key> ...           */
    bool group_in_id;         /* ... or <prefix>.<group>.<key>, group "Custom" by default  */
    const char *example;      /* an id for messages                                        */
    int record;               /* record_kind, or -1: display only                          */
    size_t size;              /* record size (display only: sizeof(rec_ident))             */
    const fspec *fields;
    /* The list-view summary of a record; NULL = the generic one
     * (key, id, name and the fields marked `summary`). */
    json_t *(*summary)(const void *rec);
};

extern const catalog_kind cat_kinds[];
#define CAT_N_KINDS 15

/* Index of a kind in cat_kinds. */
size_t cat_kind_index(const catalog_kind *k);
/* The kind whose file section is exactly `name` (files are case-sensitive); -1 if none. */
long cat_kind_by_section(const char *name);

/* ---- one field (field.c) ---------------------------------------------------- */

/* Where a reader's or merger's error goes: the offending field's dotted
 * path and "<field>: <what was expected>" (either buffer may be NULL). */
typedef struct {
    char *field;
    size_t fieldlen;
    char *err;
    size_t errlen;
} cat_errsink;

/* Write the message for field `path` into es; returns 400. */
int cat_fail(const cat_errsink *es, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "unknown field" at `shown`, with the nearest name of `specs` when one is
 * close, else the list of them (prefix: the level's dotted path); 400. */
int cat_fail_unknown(const cat_errsink *es, const fspec *specs, const char *prefix, const char *name,
                     const char *shown);
/* One quantity of unit kind u into SI (*out): a number in SI, a string with
 * a unit, or {"value", "unit"[, "si", "si_unit"]}; finite and >= 0. If
 * declared_out is not NULL it receives the SI value of the unit it was
 * written in (2^30 for "44 GiB"). 0, or cat_fail's 400. */
int cat_parse_qty(const cat_errsink *es, const char *path, const json_t *v, ukind u, double *out,
                  double *declared_out);
/* A member name a quantity object may have ("value", "unit", "si", ...). */
bool cat_qty_key_ok(const char *k);
/* The SI spelling of unit kind u ("B/s"), and an example for messages ("2039 GB/s"). */
const char *cat_unit_si(ukind u);
const char *cat_unit_example(ukind u);
/* The row `name` of a field table; NULL if none (or specs is NULL). */
const fspec *cat_find_spec(const fspec *specs, const char *name);
/* "prefix.name" (or "name"), cut to fit n. */
void cat_join_path(char *out, size_t n, const char *prefix, const char *name);
/* "an object", "a string", ... for messages. */
const char *cat_json_kind(const json_t *v);
/* The shortest text that reads back as the same double. */
void cat_fmt_num(char *buf, size_t n, double v);

/* ---- list views (summary.c) ------------------------------------------------- */

/* List-view summaries of hardware and workloads, for the kinds table. */
json_t *cat_summary_hardware(const void *rec);
json_t *cat_summary_model(const void *rec);
/* The generic list-view summary: key, id, name, group (from `entry`, when
 * it has one) and the fields marked `summary`, read from the record `rec`
 * (record kinds) or from `entry` (display-only kinds, where a figure the
 * entry lacks is left out); "units" names the SI
 * unit of each quantity. */
json_t *cat_summary(const catalog_kind *k, const void *rec, const json_t *entry);

/* ---- reading entries (entry.c) ------------------------------------------------ */

/* How cat_extract resolves a T_REF field (an id or an inline object of
 * kind `k`) into `out` (a record of that kind). Returns 0, 404 (unknown id)
 * or 400 with field (relative to v) and err = "<field>: <what>" like
 * cat_extract. */
typedef struct {
    int (*fn)(void *ctx, const catalog_kind *k, const json_t *v, void *out, char *field,
              size_t fieldlen, char *err, size_t errlen);
    void *ctx;
} cat_resolver;

/* Read one entry (catalog file entry, overlaid entry or merged inline object)
 * into *out, a record of k->size bytes. Every field of the entry is checked
 * against the format: an unknown name, a wrong type, a quantity of the
 * wrong dimension or a missing required field is an error. Returns 0, or
 * 400 (404 for an unknown id in a reference) with `field` = dotted path of
 * the offending field ("" for the entry itself) and err = "<field>: <what
 * was expected>". */
int cat_extract(const catalog_kind *k, const json_t *entry, void *out, const cat_resolver *r,
                char *field, size_t fieldlen, char *err, size_t errlen);

/* ---- Hugging Face configs (hf_config.c) ---------------------------------------- */

/* A model entry (new reference in *out: key "hf_config", type, parameters,
 * active_parameters, layers, heads, kv_heads, head_dim, ... as a catalog
 * entry spells them) computed from a config.json object. Returns 0, or
 * cat_fail's 400 naming the config field ("hf_config.num_hidden_layers",
 * "hf_config.model_type"). */
int cat_hf_config_entry(const cat_errsink *es, const json_t *cfg, json_t **out);

/* ---- merging (merge.c) --------------------------------------------------------- */

/* Lay the members of `src` over `target` (an object this caller owns; nested
 * objects along the way are copied before they are changed, so `target` may
 * be a shallow json_copy() of a shared catalog entry). Member names may be
 * dotted ("memory.capacity"); an object value for an object field
 * ("memory": {...}) merges into it; null clears a field (and removes a
 * precision_flops key). A reference field takes the new value whole.
 * Unknown names are an error (400, as cat_extract). A top-level member
 * named `skip` (e.g. "base") is ignored. */
int cat_merge(const catalog_kind *k, json_t *target, const json_t *src, const char *skip,
              char *field, size_t fieldlen, char *err, size_t errlen);

/* The value at a dotted path of an entry (borrowed), NULL if absent. */
json_t *cat_path_get(json_t *entry, const char *dotted);

/* The canonical SI unit spelling of a quantity field ("B/s", "flop/s", ...),
 * or NULL if `dotted` is not a quantity field of that kind. */
const char *cat_field_si_unit(const catalog_kind *k, const char *dotted);

/* Case-insensitive optimal-string-alignment (Damerau) edit distance (field.c). */
size_t cat_edit_distance(const char *a, const char *b);

/* ---- where in a file (textpos.c) ------------------------------------------------ */

/* 1-based line of something in a JSON text, for "file:line: reason":
 * the line of the `index`-th element of the top-level member `section`, or
 * of that element's "key" member when it has one; of the member `section`
 * itself when index < 0; 1 if not found. */
int cat_text_entry_line(const char *text, size_t len, const char *section, long index);
/* Line of the first occurrence of "needle" (quoted) in the text, 1 if none. */
int cat_text_string_line(const char *text, size_t len, const char *needle);

#endif
