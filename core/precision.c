/* precision.c - see precision.h. */
#include "core/precision.h"

#include <stdio.h>
#include <strings.h>

const char *const PRECISION_KEYS[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", NULL};
static const double PRECISION_BYTES[] = {4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 0.5};

int precision_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; PRECISION_KEYS[i]; i++)
        if (strcasecmp(name, PRECISION_KEYS[i]) == 0)
            return i;
    return -1;
}

double precision_bytes(int index) { return PRECISION_BYTES[index]; }

void precision_unsupported_message(const char *given, char *buf, unsigned long n)
{
    /* resolve_precision lists sorted(keys) joined with ", ". */
    snprintf(buf, n,
             "precision '%s' is not supported. Supported precision values: "
             "bf16, fp16, fp32, fp8, int4, int8, tf32",
             given);
}

/* ---- storage formats ---------------------------------------------------------- */

const precision_format PRECISION_FORMATS[] = {
    {"fp32", 32, "fp32", "IEEE 754 binary32", "IEEE 754-2019"},
    {"tf32", 32, "tf32", "stored as fp32 (TF32 is a compute mode)", "NVIDIA A100 whitepaper"},
    {"bf16", 16, "bf16", "bfloat16 (8-bit exponent, 7-bit mantissa)", "Google Brain bfloat16"},
    {"fp16", 16, "fp16", "IEEE 754 binary16", "IEEE 754-2019"},
    {"fp8", 8, "fp8", "8-bit float (E4M3 or E5M2), per-tensor scale", "Micikevicius et al. 2022, FP8 Formats for Deep Learning"},
    {"int8", 8, "int8", "8-bit integer, per-channel scales (negligible)", "Dettmers et al. 2022, LLM.int8()"},
    {"int4", 4, "int4", "4-bit integer, per-channel scales (negligible)", "mlsysim resolve_precision"},
    {"fp8_e4m3", 8, "fp8", "8-bit float, 4-bit exponent, 3-bit mantissa", "Micikevicius et al. 2022, FP8 Formats for Deep Learning"},
    {"fp8_e5m2", 8, "fp8", "8-bit float, 5-bit exponent, 2-bit mantissa", "Micikevicius et al. 2022, FP8 Formats for Deep Learning"},
    {"int4_g128", 4.125, "int4", "4-bit integer + one fp16 scale per 128 weights (GPTQ/AWQ group size 128)",
     "Frantar et al. 2023, GPTQ; Lin et al. 2024, AWQ"},
    {"int4_g64", 4.25, "int4", "4-bit integer + one fp16 scale per 64 weights", "Frantar et al. 2023, GPTQ"},
    {"int4_g32", 4.5, "int4", "4-bit integer + one fp16 scale per 32 weights", "Frantar et al. 2023, GPTQ"},
    {"nvfp4", 4.5, "fp4", "4-bit E2M1 + one FP8 E4M3 scale per 16 elements (+ one fp32 scale per tensor)",
     "NVIDIA, Introducing NVFP4 for Efficient and Accurate Low-Precision Inference (2025)"},
    {"mxfp4", 4.25, "fp4", "4-bit E2M1 + one E8M0 scale per 32 elements", "OCP Microscaling Formats (MX) Specification v1.0"},
    {"mxfp8", 8.25, "fp8", "8-bit E4M3 + one E8M0 scale per 32 elements", "OCP Microscaling Formats (MX) Specification v1.0"},
    {"q8_0", 8.5, NULL, "GGUF: blocks of 32 int8 + one fp16 scale (34 bytes per 32)", "ggml ggml-common.h block_q8_0"},
    {"q5_k_m", 5.68, NULL, "GGUF k-quant mix: Q5_K (5.5 bpw) with Q6_K for some attention and FFN tensors",
     "llama.cpp tools/quantize/README.md (Llama 2 7B: 5.68 bpw)"},
    {"q4_k_m", 4.84, NULL, "GGUF k-quant mix: Q4_K (4.5 bpw) with Q6_K for half of attn_v and ffn_down",
     "llama.cpp tools/quantize/README.md (Llama 2 7B: 4.84 bpw)"},
};
#define N_FORMATS (sizeof PRECISION_FORMATS / sizeof PRECISION_FORMATS[0])

const char *const FORMAT_KEYS[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp8_e4m3", "fp8_e5m2",
                                   "int4_g128", "int4_g64", "int4_g32", "nvfp4", "mxfp4", "mxfp8", "q8_0",
                                   "q5_k_m", "q4_k_m", NULL};


int format_count(void) { return (int)N_FORMATS; }

int format_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; FORMAT_KEYS[i]; i++)
        if (strcasecmp(name, FORMAT_KEYS[i]) == 0)
            return i;
    return -1;
}

double format_bytes(int index) { return PRECISION_FORMATS[index].bits / 8.0; }
