/* precision.h - numeric formats and their storage width, after mlsysim's
 * resolve_precision (core/units.py): fp32 4 B, tf32 4 B (storage width; TF32
 * compute), bf16 2, fp16 2, fp8 1, int8 1, int4 0.5 bytes per element. */
#ifndef MLSYSD_PRECISION_H
#define MLSYSD_PRECISION_H

/* NULL-terminated, in the order a dashboard lists them. */
extern const char *const PRECISION_KEYS[];

/* Index into PRECISION_KEYS of a case-insensitive name; -1 if unsupported. */
int precision_find(const char *name);
double precision_bytes(int index);
/* mlsysim's message for an unsupported name (sorted supported list). */
void precision_unsupported_message(const char *given, char *buf, unsigned long n);

/* ---- storage formats (per-tensor precision: weight_precision, kv_precision) ----
 * Every precision above, then the named formats people ship, each with its
 * effective bits per element, block scales included. FORMAT_KEYS[i] ==
 * PRECISION_KEYS[i] for the first PRECISION_COUNT entries. */
#define PRECISION_COUNT 7

typedef struct {
    const char *key;          /* "q4_k_m" */
    double bits;              /* effective bits per element, scales included */
    const char *native;       /* the precision_flops key a kernel computes it at natively ("fp4", "int4");
                               * NULL: dequantized to the activation precision first (GGUF k-quants) */
    const char *layout;       /* what the bits are: "4-bit E2M1 + one E4M3 scale per 16" */
    const char *source;       /* where the layout is specified */
} precision_format;

/* NULL-terminated; the named formats' keys (lower case). */
extern const char *const FORMAT_KEYS[];
extern const precision_format PRECISION_FORMATS[];
int format_count(void);
/* Index into FORMAT_KEYS of a case-insensitive name; -1 if unknown. */
int format_find(const char *name);
/* Bytes per element: bits / 8. */
double format_bytes(int index);
/* The supported formats, for refusals ("kv_precision '{}' is not ..."). */
#define FORMAT_LIST                                                                                     \
    "fp32, tf32, bf16, fp16, fp8, int8, int4, fp8_e4m3, fp8_e5m2, int4_g128, int4_g64, int4_g32, nvfp4, " \
    "mxfp4, mxfp8, q8_0, q5_k_m, q4_k_m"

#endif
