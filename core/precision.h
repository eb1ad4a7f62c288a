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

#endif
