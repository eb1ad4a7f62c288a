/* model.h - the hardware node and workload records the solvers compute on,
 * after mlsysim's HardwareNode and Workload types (hardware/types.py,
 * models/types.py). All quantities in SI base units; an absent optional
 * quantity is NAN, an absent optional integer is 0. */
#ifndef MLSYSD_MODEL_H
#define MLSYSD_MODEL_H

#include <math.h>
#include <stdbool.h>

#define HW_MAX_PRECISIONS 16
#define ID_LEN 96

typedef struct {
    char name[24];   /* "fp32", "int8", "fp16_sparse", ... (lower case) */
    double flops;    /* flop/s */
} hw_precision_flops;

typedef struct hw_node {
    char key[ID_LEN];     /* short key: "A100"                         */
    char id[ID_LEN];      /* mlsysim path: "Hardware.Cloud.A100"       */
    char name[ID_LEN];    /* "NVIDIA A100"                             */
    char group[32];       /* "Cloud", "Workstation", "Mobile", ...     */
    int release_year;     /* 0 = unknown                               */

    double peak_flops;    /* flop/s, the default / fp16 roofline peak  */
    int n_precisions;
    hw_precision_flops precisions[HW_MAX_PRECISIONS];

    double mem_capacity;     /* B   */
    double mem_capacity_unit; /* B per unit the capacity was declared in (2^30 for "80 GiB") */
    double mem_bandwidth;    /* B/s */
    double sram_capacity;    /* B,   NAN = absent */
    double sram_bandwidth;   /* B/s, NAN = absent */
    double flash_capacity;   /* B,   NAN = absent */
    double flash_bandwidth;  /* B/s, NAN = absent */

    bool has_storage;
    double storage_capacity;   /* B,   NAN = absent */
    double storage_bandwidth;  /* B/s, NAN = absent */

    bool has_interconnect;     /* host link, e.g. PCIe */
    char interconnect_name[64];
    double interconnect_bw;    /* B/s, NAN = absent */

    bool has_nvlink;
    double nvlink_bw;          /* B/s as written (bidirectional total where so) */
    double nvlink_latency;     /* s, NAN = absent */

    double tdp;           /* W,   NAN = absent */
    double unit_cost;     /* USD, NAN = absent */
    double dispatch_tax;  /* s (type default 0.01 ms) */
} hw_node;

typedef enum {
    WL_GENERIC = 0,          /* Workload                  */
    WL_TRANSFORMER,          /* TransformerWorkload       */
    WL_SPARSE_TRANSFORMER,   /* SparseTransformerWorkload */
    WL_CNN,                  /* CNNWorkload               */
    WL_SSM,                  /* SSMWorkload               */
    WL_DIFFUSION,            /* DiffusionWorkload         */
    WL_EMBODIED              /* EmbodiedWorkload          */
} workload_kind;

typedef struct model {
    char key[ID_LEN];          /* "ResNet50"                 */
    char id[ID_LEN];           /* "Models.Vision.ResNet50"   */
    char name[ID_LEN];         /* "ResNet-50"                */
    char group[32];            /* "Vision"                   */
    char architecture[64];     /* "CNN", "Transformer", ...  */
    workload_kind kind;

    double parameters;         /* count, NAN = absent        */
    double inference_flops;    /* flop,  NAN = absent        */
    double model_size;         /* B,     NAN = absent        */
    /* Counted from the layer shapes (tools/cnn_shapes.py), for measured mode:
     * forward flop per sample, elements of the tensors its layers write, and
     * its weighted layers. */
    double architecture_flops; /* flop,  NAN = absent        */
    double activation_elements; /* count, NAN = absent       */
    int architecture_layers;   /* convolution and fully connected layers, 0 = absent */
    double active_parameters;  /* count, NAN = absent (MoE)  */

    int layers;                /* 0 = absent */
    int hidden_dim;
    int heads;
    int kv_heads;
    int kv_lora_rank;          /* Multi-Head Latent Attention (DeepSeek): */
    int qk_rope_head_dim;      /* both set = the MLA KV-cache path        */
    int experts;
    int active_experts_per_token;
    int state_size;
    int denoising_steps;

    /* Set by a custom entry or derived from a Hugging Face config.json
     * (catalog/hf_config.c); 0 / NAN / "" in the catalog's entries. */
    int head_dim;              /* 0 = hidden_dim / heads */
    int sliding_window;        /* tokens, 0 = none; shown only: the KV cache is sized for full attention */
    double embedding_parameters; /* input embedding + untied output head (+ position tables), NAN = absent */
    double vision_parameters;  /* a multimodal config's vision tower and projector (in parameters), NAN = absent */
    char hf_model_type[32];    /* config.json's model_type when derived from one, else "" */
} model_t;

/* Type names as mlsysim spells them ("CNNWorkload"), and back. */
const char *workload_kind_name(workload_kind k);
bool workload_kind_parse(const char *name, workload_kind *out);

/* Look up a precision key in hw->precisions (exact, lower case); NULL if absent. */
const hw_precision_flops *hw_find_precision(const hw_node *hw, const char *key);

#endif
