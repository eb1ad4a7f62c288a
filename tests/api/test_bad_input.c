/* test_bad_input.c - the bad-input catalogue: malformed requests against the
 * real daemon, table-driven. Each row states the status and the "field" the
 * RFC 9457 problem must name (NULL: the problem names no field; a JSON syntax
 * error names the member where parsing stopped, e.g. inputs.efficiency for a
 * NaN literal there); every error
 * must come as application/problem+json with a matching "status", and after
 * each request /healthz must still answer 200 (the daemon survived).
 *
 * One Criterion test per row (a parameterised test over row indices), so a
 * failure names the row. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Bodies and paths too big to write inline are generated. */
typedef enum {
    G_NONE,
    G_BODY_10MB,          /* 10 MB JSON-looking body, Content-Length known */
    G_BODY_10MB_CHUNKED,  /* the same with Transfer-Encoding: chunked (no length announced) */
    G_DEEP_ARRAYS,        /* 100,000 nested '[' */
    G_DEEP_OBJECTS,       /* 5,000 nested objects inside "inputs" */
    G_MANY_KEYS,          /* 20,000 unknown keys in inputs */
    G_LONG_UNIT,          /* a 200 KB quantity string */
    G_LONG_ID_BODY,       /* a 100 KB model id */
    G_LONG_QUERY,         /* a 20 KB query value (fits the request-line memory) */
    G_OVER_URI,           /* a 40 KB request line: over the 32 KiB limit, answered by the service */
    G_HUGE_URI,           /* a 300 KB request line: past the connection's memory, refused by the HTTP layer */
    G_LONG_PATH_ID,       /* /catalog/hardware/<5,000 characters> */
    G_LONG_SOLVER,        /* /solve/<5,000 characters> */
    G_MANY_QUERY_ARGS,    /* 100 query arguments */
    G_BIG_VALUES_AXIS,    /* 250,000 listed values x a range of 8: over the default cap of 1e6 points */
    G_NUL_IN_BODY,        /* a raw NUL byte inside a JSON string */
} gen_kind;

typedef struct {
    const char *name;
    const char *method;   /* NULL: POST */
    const char *path;     /* NULL: /solve */
    const char *ctype;    /* NULL: application/json; "": no Content-Type header */
    const char *body;     /* NULL: no body (unless generated) */
    gen_kind gen;
    int status;
    const char *field;    /* expected "field"; NULL: absent (or empty) */
    bool transport;       /* refused by libmicrohttpd before the service sees it: status only */
} bad_case;

#define SN "\"solver\":\"single_node\""
#define RN "\"model\":\"ResNet50\",\"hardware\":\"A100\""
#define SOLVE(extra) "{" SN ",\"inputs\":{" RN extra "}}"
#define DATA(v) "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\",\"workload_data_rate\":" v "}}"
#define TRANSFORM(sample, cpu, step)                                                                             \
    "{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":256,\"sample_size_bytes\":" sample                \
    ",\"cpu_throughput\":" cpu ",\"accelerator_step_time\":" step "}}"
#define SWEEP(axes) "{" SN ",\"inputs\":{" RN "},\"axes\":" axes "}"
#define SWEEP_X(axes, extra) "{" SN ",\"inputs\":{" RN "},\"axes\":" axes extra "}"
#define GQ "/solve/single_node?model=ResNet50&hardware=A100"
#define SQ "/sweep/single_node?model=ResNet50&hardware=A100"

static const bad_case CASES[] = {
    /* --- broken and truncated JSON ------------------------------------------------------- */
    {"json_open_brace", NULL, NULL, NULL, "{", G_NONE, 400, NULL, false},
    {"json_truncated_key", NULL, NULL, NULL, "{\"solver\":", G_NONE, 400, "solver", false},
    {"json_truncated_inputs", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"Res", G_NONE, 400, "inputs.model", false},
    {"json_missing_colon", NULL, NULL, NULL, "{\"solver\" \"single_node\"}", G_NONE, 400, "solver", false},
    {"json_trailing_comma", NULL, NULL, NULL, "{" SN ",\"inputs\":{" RN ",}}", G_NONE, 400, "inputs", false},
    {"json_single_quotes", NULL, NULL, NULL, "{'solver':'single_node'}", G_NONE, 400, NULL, false},
    {"json_comment", NULL, NULL, NULL, "{" SN " /* c */ }", G_NONE, 400, "solver", false},
    {"json_trailing_garbage", NULL, NULL, NULL, SOLVE("") " x", G_NONE, 400, NULL, false},
    {"json_two_documents", NULL, NULL, NULL, SOLVE("") " {}", G_NONE, 400, NULL, false},
    {"json_null_document", NULL, NULL, NULL, "null", G_NONE, 400, NULL, false},
    {"json_array_document", NULL, NULL, NULL, "[]", G_NONE, 400, NULL, false},
    {"json_string_document", NULL, NULL, NULL, "\"single_node\"", G_NONE, 400, NULL, false},
    {"json_number_document", NULL, NULL, NULL, "42", G_NONE, 400, NULL, false},
    {"json_bom", NULL, NULL, NULL, "\xef\xbb\xbf" SOLVE(""), G_NONE, 400, NULL, false},
    {"json_unterminated_string", NULL, NULL, NULL, "{\"solver\":\"single_node}", G_NONE, 400, "solver", false},
    {"json_bad_escape", NULL, NULL, NULL, "{\"solver\":\"single\\xnode\"}", G_NONE, 400, "solver", false},
    {"json_only_whitespace", NULL, NULL, NULL, "   \r\n\t ", G_NONE, 400, NULL, false},
    {"empty_body", NULL, NULL, NULL, "", G_NONE, 400, NULL, false},
    {"no_body", NULL, NULL, NULL, NULL, G_NONE, 400, NULL, false},
    {"empty_body_sweep", NULL, "/sweep", NULL, "", G_NONE, 400, NULL, false},
    /* --- NaN, Infinity, out-of-range literals -------------------------------------------- */
    {"nan_literal", NULL, NULL, NULL, SOLVE(",\"efficiency\":NaN"), G_NONE, 400, "inputs.efficiency", false},
    {"infinity_literal", NULL, NULL, NULL, SOLVE(",\"efficiency\":Infinity"), G_NONE, 400, "inputs.efficiency", false},
    {"minus_infinity_literal", NULL, NULL, NULL, SOLVE(",\"efficiency\":-Infinity"), G_NONE, 400, "inputs.efficiency", false},
    {"real_1e400", NULL, NULL, NULL, SOLVE(",\"efficiency\":1e400"), G_NONE, 400, "inputs.efficiency", false},
    {"batch_1e400", NULL, NULL, NULL, SOLVE(",\"batch_size\":1e400"), G_NONE, 400, "inputs.batch_size", false},
    {"quantity_number_1e300_overflows", NULL, NULL, NULL, DATA("1e300"), G_NONE, 400, "inputs.workload_data_rate", false},
    {"quantity_string_1e400", NULL, NULL, NULL, DATA("\"1e400 GB/s\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"quantity_string_nan", NULL, NULL, NULL, DATA("\"nan GB/s\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"quantity_string_inf", NULL, NULL, NULL, DATA("\"inf GB/s\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"query_efficiency_nan", "GET", GQ "&efficiency=nan", NULL, NULL, G_NONE, 400, "inputs.efficiency", false},
    {"query_efficiency_inf", "GET", GQ "&efficiency=inf", NULL, NULL, G_NONE, 400, "inputs.efficiency", false},
    {"query_batch_1e400", "GET", GQ "&batch_size=1e400", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    /* --- batch sizes ---------------------------------------------------------------------- */
    {"batch_negative", NULL, NULL, NULL, SOLVE(",\"batch_size\":-1"), G_NONE, 400, "inputs.batch_size", false},
    {"batch_zero", NULL, NULL, NULL, SOLVE(",\"batch_size\":0"), G_NONE, 400, "inputs.batch_size", false},
    {"batch_fractional", NULL, NULL, NULL, SOLVE(",\"batch_size\":1.5"), G_NONE, 400, "inputs.batch_size", false},
    {"batch_2_pow_63", NULL, NULL, NULL, SOLVE(",\"batch_size\":9223372036854775808"), G_NONE, 400, "inputs.batch_size", false},
    {"batch_2_pow_63_minus_1", NULL, NULL, NULL, SOLVE(",\"batch_size\":9223372036854775807"), G_NONE, 400,
     "inputs.batch_size", false},
    {"batch_minus_2_pow_63", NULL, NULL, NULL, SOLVE(",\"batch_size\":-9223372036854775808"), G_NONE, 400,
     "inputs.batch_size", false},
    {"batch_2_pow_53_plus_1", NULL, NULL, NULL, SOLVE(",\"batch_size\":9007199254740993"), G_NONE, 400,
     "inputs.batch_size", false},
    {"batch_string", NULL, NULL, NULL, SOLVE(",\"batch_size\":\"256\""), G_NONE, 400, "inputs.batch_size", false},
    {"batch_boolean", NULL, NULL, NULL, SOLVE(",\"batch_size\":true"), G_NONE, 400, "inputs.batch_size", false},
    {"batch_array", NULL, NULL, NULL, SOLVE(",\"batch_size\":[256]"), G_NONE, 400, "inputs.batch_size", false},
    {"batch_object", NULL, NULL, NULL, SOLVE(",\"batch_size\":{\"value\":256}"), G_NONE, 400, "inputs.batch_size", false},
    {"query_batch_negative", "GET", GQ "&batch_size=-5", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"query_batch_fraction", "GET", GQ "&batch_size=2.5", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"query_batch_2_pow_63", "GET", GQ "&batch_size=9223372036854775808", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"query_batch_text", "GET", GQ "&batch_size=lots", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"query_batch_empty", "GET", GQ "&batch_size=", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    /* --- range checks ----------------------------------------------------------------------- */
    {"efficiency_zero", NULL, NULL, NULL, SOLVE(",\"efficiency\":0"), G_NONE, 400, "inputs.efficiency", false},
    {"efficiency_above_one", NULL, NULL, NULL, SOLVE(",\"efficiency\":1.0000001"), G_NONE, 400, "inputs.efficiency", false},
    {"efficiency_negative", NULL, NULL, NULL, SOLVE(",\"efficiency\":-0.5"), G_NONE, 400, "inputs.efficiency", false},
    {"efficiency_two", "GET", GQ "&efficiency=2", NULL, NULL, G_NONE, 400, "inputs.efficiency", false},
    {"efficiency_string", NULL, NULL, NULL, SOLVE(",\"efficiency\":\"0.5\""), G_NONE, 400, "inputs.efficiency", false},
    {"zero_stage_four", NULL, NULL, NULL, SOLVE(",\"zero_stage\":4"), G_NONE, 400, "inputs.zero_stage", false},
    {"seq_len_zero", NULL, NULL, NULL, SOLVE(",\"seq_len\":0"), G_NONE, 400, "inputs.seq_len", false},
    {"dp_size_zero", NULL, NULL, NULL, SOLVE(",\"dp_size\":0"), G_NONE, 400, "inputs.dp_size", false},
    {"is_training_string", NULL, NULL, NULL, SOLVE(",\"is_training\":\"yes\""), G_NONE, 400, "inputs.is_training", false},
    {"is_training_number", NULL, NULL, NULL, SOLVE(",\"is_training\":1"), G_NONE, 400, "inputs.is_training", false},
    {"data_rate_negative", NULL, NULL, NULL, DATA("-5"), G_NONE, 400, "inputs.workload_data_rate", false},
    {"cpu_throughput_zero", NULL, NULL, NULL, TRANSFORM("\"500 KB\"", "\"0 GB/s\"", "\"7 ms\""), G_NONE, 400,
     "inputs.cpu_throughput", false},
    /* --- precision ------------------------------------------------------------------------- */
    {"precision_unknown", NULL, NULL, NULL, SOLVE(",\"precision\":\"fp64\""), G_NONE, 400, "inputs.precision", false},
    {"precision_empty", NULL, NULL, NULL, SOLVE(",\"precision\":\"\""), G_NONE, 400, "inputs.precision", false},
    {"precision_number", NULL, NULL, NULL, SOLVE(",\"precision\":16"), G_NONE, 400, "inputs.precision", false},
    {"precision_query", "GET", GQ "&precision=float128", NULL, NULL, G_NONE, 400, "inputs.precision", false},
    /* --- unknown fields -------------------------------------------------------------------- */
    {"unknown_top_level", NULL, NULL, NULL, "{" SN ",\"inputs\":{" RN "},\"extra\":1}", G_NONE, 400, "extra", false},
    {"unknown_top_level_typo", NULL, NULL, NULL, "{" SN ",\"input\":{" RN "}}", G_NONE, 400, "input", false},
    {"unknown_input", NULL, NULL, NULL, SOLVE(",\"batchsize\":16"), G_NONE, 400, "inputs.batchsize", false},
    {"unknown_input_case", NULL, NULL, NULL, SOLVE(",\"Batch_Size\":16"), G_NONE, 400, "inputs.Batch_Size", false},
    {"unknown_input_query", "GET", GQ "&bogus=1", NULL, NULL, G_NONE, 400, "inputs.bogus", false},
    {"unknown_dotted_query", "GET", GQ "&efficiency.x=1", NULL, NULL, G_NONE, 400, "inputs.efficiency.x", false},
    {"unknown_model_field", NULL, NULL, NULL,
     "{" SN ",\"inputs\":{\"model\":{\"base\":\"ResNet50\",\"bogus\":1},\"hardware\":\"A100\"}}", G_NONE, 400,
     "inputs.model.bogus", false},
    {"unknown_model_field_query", "GET", GQ "&model.bogus=1", NULL, NULL, G_NONE, 400, "inputs.model.bogus", false},
    {"unknown_sweep_field", NULL, "/sweep", NULL, SWEEP_X("[{\"input\":\"batch_size\",\"values\":[1]}]", ",\"extra\":[]"),
     G_NONE, 400, "extra", false},
    {"unknown_axis_field", NULL, "/sweep", NULL, SWEEP("[{\"input\":\"batch_size\",\"values\":[1],\"step\":2}]"), G_NONE,
     400, "axes[0]", false},
    {"unknown_axis_input", NULL, "/sweep", NULL, SWEEP("[{\"input\":\"batch_sz\",\"values\":[1]}]"), G_NONE, 400, "axes[0].input", false},
    {"unknown_sweep_output", NULL, "/sweep", NULL,
     SWEEP_X("[{\"input\":\"batch_size\",\"values\":[1]}]", ",\"outputs\":[\"nope\"]"), G_NONE, 400, "outputs[0]", false},
    {"unknown_catalog_query", "GET", "/catalog/hardware/A100?bogus=1", NULL, NULL, G_NONE, 400, "bogus", false},
    /* --- wrong types of structure ------------------------------------------------------------ */
    {"solver_missing", NULL, NULL, NULL, "{\"inputs\":{" RN "}}", G_NONE, 400, "solver", false},
    {"solver_number", NULL, NULL, NULL, "{\"solver\":1}", G_NONE, 400, "solver", false},
    {"inputs_array", NULL, NULL, NULL, "{" SN ",\"inputs\":[]}", G_NONE, 400, "inputs", false},
    {"inputs_string", NULL, NULL, NULL, "{" SN ",\"inputs\":\"ResNet50\"}", G_NONE, 400, "inputs", false},
    {"model_missing", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"hardware\":\"A100\"}}", G_NONE, 400, "inputs.model", false},
    {"model_array", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":[],\"hardware\":\"A100\"}}", G_NONE, 400,
     "inputs.model", false},
    {"model_custom_incomplete", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":{},\"hardware\":\"A100\"}}", G_NONE, 400,
     "inputs.model.parameters", false},
    {"catalog_number", NULL, NULL, NULL, "{" SN ",\"catalog\":5,\"inputs\":{" RN "}}", G_NONE, 400, "catalog", false},
    {"catalog_unknown", NULL, NULL, NULL, "{" SN ",\"catalog\":\"tutorialx\",\"inputs\":{" RN "}}", G_NONE, 400,
     "catalog", false},
    {"catalog_unknown_query", "GET", GQ "&catalog=nope", NULL, NULL, G_NONE, 400, "catalog", false},
    {"catalog_kind_filter", "GET", "/catalog?kind=gpus", NULL, NULL, G_NONE, 400, "kind", false},
    /* --- unknown ids ------------------------------------------------------------------------- */
    {"unknown_model", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"ResNet5O\",\"hardware\":\"A100\"}}", G_NONE, 404,
     "inputs.model", false},
    {"unknown_hardware", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A1OO\"}}", G_NONE,
     404, "inputs.hardware", false},
    {"empty_model_id", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"\",\"hardware\":\"A100\"}}", G_NONE, 404,
     "inputs.model", false},
    {"unknown_base", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":{\"base\":\"Nope\"},\"hardware\":\"A100\"}}", G_NONE,
     404, "inputs.model.base", false},
    {"unknown_solver", NULL, NULL, NULL, "{\"solver\":\"single_nod\",\"inputs\":{" RN "}}", G_NONE, 404, "solver", false},
    {"unknown_solver_get", "GET", "/solve/nope?model=ResNet50", NULL, NULL, G_NONE, 404, "solver", false},
    {"unknown_solver_sweep_get", "GET", "/sweep/nope?batch_size=1,2", NULL, NULL, G_NONE, 404, "solver", false},
    {"unknown_hardware_path", "GET", "/catalog/hardware/NoSuchChip", NULL, NULL, G_NONE, 404, "id", false},
    {"unknown_model_path", "GET", "/catalog/models/NoSuchModel", NULL, NULL, G_NONE, 404, "id", false},
    {"unknown_solver_describe", "GET", "/solvers/nope", NULL, NULL, G_NONE, 404, "name", false},
    {"unknown_hardware_query", "GET", "/solve/single_node?model=ResNet50&hardware=Z9", NULL, NULL, G_NONE, 404,
     "inputs.hardware", false},
    {"unknown_axis_id", NULL, "/sweep", NULL, SWEEP("[{\"input\":\"model\",\"values\":[\"ResNet50\",\"BERT\"]}]"), G_NONE,
     404, "axes[0].values[1]", false},
    /* --- units -------------------------------------------------------------------------------- */
    {"unit_wrong_dimension", NULL, NULL, NULL, DATA("\"5 ms\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_size_for_rate", NULL, NULL, NULL, DATA("\"5 GB\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_rate_for_size", NULL, NULL, NULL, TRANSFORM("\"500 KB/s\"", "\"2 GB/s\"", "\"7 ms\""), G_NONE, 400,
     "inputs.sample_size_bytes", false},
    {"unit_size_for_time", NULL, NULL, NULL, TRANSFORM("\"500 KB\"", "\"2 GB/s\"", "\"7 GB\""), G_NONE, 400,
     "inputs.accelerator_step_time", false},
    {"unit_flops_for_bytes", NULL, NULL, NULL,
     "{" SN ",\"inputs\":{\"model\":{\"base\":\"ResNet50\",\"inference_flops\":\"4 GB\"},\"hardware\":\"A100\"}}", G_NONE,
     400, "inputs.model.inference_flops", false},
    {"unit_time_for_flops_rate", NULL, NULL, NULL,
     "{" SN ",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":{\"base\":\"A100\",\"compute\":{\"peak_flops\":\"5 ms\"}}}}",
     G_NONE, 400, "inputs.hardware.compute.peak_flops", false},
    {"unit_negative_capacity", NULL, NULL, NULL,
     "{" SN ",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":{\"base\":\"A100\",\"memory\":{\"capacity\":\"-1 GB\"}}}}",
     G_NONE, 400, "inputs.hardware.memory.capacity", false},
    {"unit_empty", NULL, NULL, NULL, DATA("\"\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_blank", NULL, NULL, NULL, DATA("\"   \""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_without_number", NULL, NULL, NULL, DATA("\"GB/s\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_unknown", NULL, NULL, NULL, DATA("\"5 parsecs\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_double_slash", NULL, NULL, NULL, DATA("\"5 GB//s\""), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_array", NULL, NULL, NULL, DATA("[1]"), G_NONE, 400, "inputs.workload_data_rate", false},
    {"unit_query_wrong_dimension", "GET", "/solve/data?hardware=A100&workload_data_rate=5%20ms", NULL, NULL, G_NONE, 400,
     "inputs.workload_data_rate", false},
    {"unit_query_empty", "GET", "/solve/data?hardware=A100&workload_data_rate=", NULL, NULL, G_NONE, 400,
     "inputs.workload_data_rate", false},
    {"unit_query_no_value", "GET", "/solve/data?hardware=A100&workload_data_rate", NULL, NULL, G_NONE, 400,
     "inputs.workload_data_rate", false},
    {"unit_axis_wrong_dimension", NULL, "/sweep", NULL,
     "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\"},\"axes\":[{\"input\":\"workload_data_rate\",\"values\":[\"5 ms\"]}]}",
     G_NONE, 400, "axes[0].values[0]", false},
    {"unit_range_wrong_dimension", NULL, "/sweep", NULL,
     "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\"},\"axes\":[{\"input\":\"workload_data_rate\",\"range\":"
     "{\"start\":\"1 GB/s\",\"stop\":\"5 ms\",\"step\":1}}]}",
     G_NONE, 400, "axes[0].range.stop", false},
    /* --- duplicate keys, invalid UTF-8, NUL ----------------------------------------------------- */
    {"duplicate_top_level", NULL, NULL, NULL, "{" SN ",\"inputs\":{" RN "}," SN "}", G_NONE, 400, "solver", false},
    {"duplicate_input", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"ResNet50\",\"model\":\"BERT_Base\",\"hardware\":\"A100\"}}",
     G_NONE, 400, "inputs.model", false},
    {"duplicate_query", "GET", GQ "&batch_size=1&batch_size=2", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"utf8_invalid_value", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"\xff\xfe\",\"hardware\":\"A100\"}}", G_NONE,
     400, "inputs.model", false},
    {"utf8_invalid_key", NULL, NULL, NULL, "{" SN ",\"inputs\":{" RN ",\"\xc3\x28\":1}}", G_NONE, 400, "inputs", false},
    {"utf8_overlong", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"\xc0\xaf\",\"hardware\":\"A100\"}}", G_NONE, 400, "inputs.model", false},
    {"utf8_surrogate_escape", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"\\ud800\",\"hardware\":\"A100\"}}",
     G_NONE, 400, "inputs.model", false},
    {"nul_escape", NULL, NULL, NULL, "{" SN ",\"inputs\":{\"model\":\"ResNet50\\u0000x\",\"hardware\":\"A100\"}}", G_NONE,
     400, "inputs.model", false},
    {"nul_raw_byte", NULL, NULL, NULL, NULL, G_NUL_IN_BODY, 400, "inputs.model", false},
    {"utf8_invalid_query_id", "GET", "/solve/single_node?model=%FF%FE&hardware=A100", NULL, NULL, G_NONE, 400,
     "inputs.model", false},
    {"utf8_invalid_query_key", "GET", GQ "&%FF=1", NULL, NULL, G_NONE, 400, NULL, false},
    {"utf8_invalid_query_dotted", "GET", GQ "&model.name=%C3%28", NULL, NULL, G_NONE, 400, "inputs.model.name", false},
    {"utf8_invalid_sweep_axis_value", "GET", SQ "&batch_size=1,%FF", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"utf8_invalid_path_id", "GET", "/catalog/hardware/%C3%28", NULL, NULL, G_NONE, 404, "id", false},
    /* --- sizes, depth ------------------------------------------------------------------------ */
    {"body_10mb", NULL, NULL, NULL, NULL, G_BODY_10MB, 413, NULL, false},
    {"body_10mb_chunked", NULL, NULL, NULL, NULL, G_BODY_10MB_CHUNKED, 413, NULL, false},
    {"body_10mb_sweep", NULL, "/sweep", NULL, NULL, G_BODY_10MB, 413, NULL, false},
    {"deep_arrays", NULL, NULL, NULL, NULL, G_DEEP_ARRAYS, 400, NULL, false},
    {"deep_objects", NULL, NULL, NULL, NULL, G_DEEP_OBJECTS, 400, NULL, false},
    {"many_unknown_keys", NULL, NULL, NULL, NULL, G_MANY_KEYS, 400, "inputs.k0", false},
    {"long_unit_string", NULL, NULL, NULL, NULL, G_LONG_UNIT, 400, "inputs.workload_data_rate", false},
    {"long_model_id", NULL, NULL, NULL, NULL, G_LONG_ID_BODY, 404, "inputs.model", false},
    {"long_query_value", "GET", NULL, NULL, NULL, G_LONG_QUERY, 404, "inputs.model", false},
    {"request_line_over_limit", "GET", NULL, NULL, NULL, G_OVER_URI, 414, NULL, false},
    {"huge_request_line", "GET", NULL, NULL, NULL, G_HUGE_URI, 414, NULL, true},
    {"long_path_id", "GET", NULL, NULL, NULL, G_LONG_PATH_ID, 404, "id", false},
    {"long_solver_name", "GET", NULL, NULL, NULL, G_LONG_SOLVER, 404, "solver", false},
    {"too_many_query_args", "GET", NULL, NULL, NULL, G_MANY_QUERY_ARGS, 400, NULL, false},
    /* --- sweeps ------------------------------------------------------------------------------ */
    {"sweep_no_axes", NULL, "/sweep", NULL, "{" SN ",\"inputs\":{" RN "}}", G_NONE, 400, "axes", false},
    {"sweep_empty_axes", NULL, "/sweep", NULL, SWEEP("[]"), G_NONE, 400, "axes", false},
    {"sweep_axes_object", NULL, "/sweep", NULL, SWEEP("{}"), G_NONE, 400, "axes", false},
    {"sweep_empty_values", NULL, "/sweep", NULL, SWEEP("[{\"input\":\"batch_size\",\"values\":[]}]"), G_NONE, 400, "axes[0].values", false},
    {"sweep_axis_without_form", NULL, "/sweep", NULL, SWEEP("[{\"input\":\"batch_size\"}]"), G_NONE, 400, "axes[0]", false},
    {"sweep_axis_two_forms", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"values\":[1],\"range\":{\"start\":1,\"stop\":2,\"step\":1}}]"), G_NONE, 400,
     "axes[0]", false},
    {"sweep_axis_not_object", NULL, "/sweep", NULL, SWEEP("[1]"), G_NONE, 400, "axes[0]", false},
    {"sweep_same_input_twice", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"values\":[1]},{\"input\":\"batch_size\",\"values\":[2]}]"), G_NONE, 400, "axes[1].input", false},
    {"sweep_too_many_axes", NULL, "/sweep", NULL, SWEEP("[1,2,3,4,5,6,7,8,9]"), G_NONE, 400, "axes", false},
    {"sweep_huge_range", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1e12,\"step\":1}}]"), G_NONE, 413, "axes", false},
    {"sweep_tiny_step", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"efficiency\",\"range\":{\"start\":0.1,\"stop\":1,\"step\":1e-300}}]"), G_NONE, 413, "axes", false},
    {"sweep_huge_geomspace", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"geomspace\":{\"start\":1,\"stop\":1000,\"count\":9223372036854775807}}]"),
     G_NONE, 413, "axes", false},
    {"sweep_product_over_cap", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1000,\"step\":1}},"
           "{\"input\":\"seq_len\",\"range\":{\"start\":1,\"stop\":1000,\"step\":1}},"
           "{\"input\":\"dp_size\",\"values\":[1,2]}]"),
     G_NONE, 413, "axes", false},
    {"sweep_big_values_axis", NULL, "/sweep", NULL, NULL, G_BIG_VALUES_AXIS, 413, "axes", false},
    {"sweep_zero_step", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":10,\"step\":0}}]"), G_NONE, 400, "axes[0].range.step", false},
    {"sweep_backwards_step", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"range\":{\"start\":10,\"stop\":1,\"step\":1}}]"), G_NONE, 400, "axes[0].range.step", false},
    {"sweep_geomspace_count_zero", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"geomspace\":{\"start\":1,\"stop\":1000,\"count\":0}}]"), G_NONE, 400, "axes[0].geomspace.count", false},
    {"sweep_geomspace_from_zero", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"batch_size\",\"geomspace\":{\"start\":0,\"stop\":1000,\"count\":5}}]"), G_NONE, 400, "axes[0].geomspace", false},
    {"sweep_range_on_enum", NULL, "/sweep", NULL,
     SWEEP("[{\"input\":\"precision\",\"range\":{\"start\":1,\"stop\":3,\"step\":1}}]"), G_NONE, 400, "axes[0].range", false},
    {"sweep_bad_enum_value", NULL, "/sweep", NULL, SWEEP("[{\"input\":\"precision\",\"values\":[\"fp16\",\"fp64\"]}]"),
     G_NONE, 400, "axes[0].values[1]", false},
    {"sweep_fractional_batch_value", NULL, "/sweep", NULL,
     SWEEP_X("[{\"input\":\"batch_size\",\"values\":[1,1.5]}]", ",\"format\":\"csv\""), G_NONE, 400, "axes[0].values[1]", false},
    {"sweep_bad_format", NULL, "/sweep", NULL, SWEEP_X("[{\"input\":\"batch_size\",\"values\":[1]}]", ",\"format\":\"xml\""),
     G_NONE, 400, "format", false},
    {"sweep_empty_outputs", NULL, "/sweep", NULL, SWEEP_X("[{\"input\":\"batch_size\",\"values\":[1]}]", ",\"outputs\":[]"),
     G_NONE, 400, "outputs", false},
    /* an input both fixed and swept takes the axis values, but its fixed value is still checked */
    {"sweep_fixed_invalid_and_swept", NULL, "/sweep", NULL,
     "{" SN ",\"inputs\":{" RN ",\"batch_size\":\"four\"},\"axes\":[{\"input\":\"batch_size\",\"values\":[1,2]}]}", G_NONE, 400, "inputs.batch_size", false},
    {"sweep_get_empty_axis", "GET", SQ "&batch_size=,", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"sweep_get_bad_value", "GET", SQ "&batch_size=1,x", NULL, NULL, G_NONE, 400, "inputs.batch_size", false},
    {"sweep_get_bad_format", "GET", SQ "&batch_size=1,2&format=xml", NULL, NULL, G_NONE, 400, "format", false},
    {"sweep_get_unknown_axis", "GET", SQ "&bogus=1,2", NULL, NULL, G_NONE, 400, "inputs.bogus", false},
    {"sweep_get_unknown_output", "GET", SQ "&batch_size=1,2&outputs=nope", NULL, NULL, G_NONE, 400, "outputs[0]", false},
    {"sweep_get_huge_axis", "GET",
     "/sweep/pipeline?model=ResNet50&hardware=A100&sample_size_bytes=1%20KB&cpu_workers=1,2&batch_size=1,2,3,4,5,6,7,8,9,10&"
     "seq_len=1,2,3,4,5,6,7,8,9,10&dp_size=1,2,3,4,5,6,7,8,9,10&zero_stage=0,1,2,3&efficiency=0.1,0.2,0.3,0.4,0.5,0.6,0.7,"
     "0.8,0.9,1&precision=fp32,fp16,bf16,int8,int4,fp8,tf32&is_training=true,false",
     NULL, NULL, G_NONE, 413, "axes", false},
    /* --- methods, routes, content types ---------------------------------------------------- */
    {"method_get_on_post_route", "GET", "/solve", NULL, NULL, G_NONE, 405, NULL, false},
    {"method_put", "PUT", "/solve", NULL, SOLVE(""), G_NONE, 405, NULL, false},
    {"method_delete", "DELETE", "/healthz", NULL, NULL, G_NONE, 405, NULL, false},
    {"method_patch_sweep", "PATCH", "/sweep", NULL, "{}", G_NONE, 405, NULL, false},
    {"method_post_on_get_route", "POST", "/solve/single_node", NULL, SOLVE(""), G_NONE, 405, NULL, false},
    {"method_post_catalog", "POST", "/catalog", NULL, "{}", G_NONE, 405, NULL, false},
    {"method_unknown_verb", "BREW", "/solve", NULL, NULL, G_NONE, 405, NULL, false},
    {"route_unknown", "GET", "/nope", NULL, NULL, G_NONE, 404, NULL, false},
    {"route_extra_segment", "GET", "/solve/single_node/extra", NULL, NULL, G_NONE, 404, NULL, false},
    {"route_double_slash", "GET", "//solve", NULL, NULL, G_NONE, 404, NULL, false},
    {"route_dot_dot", "GET", "/catalog/../etc/passwd", NULL, NULL, G_NONE, 404, NULL, false},
    {"ctype_text_plain", NULL, NULL, "text/plain", SOLVE(""), G_NONE, 415, NULL, false},
    {"ctype_form", NULL, NULL, "application/x-www-form-urlencoded", "solver=single_node", G_NONE, 415, NULL, false},
    {"ctype_xml", NULL, "/sweep", "application/xml", "<sweep/>", G_NONE, 415, NULL, false},
    {"ctype_multipart", NULL, NULL, "multipart/form-data; boundary=x", "--x--", G_NONE, 415, NULL, false},
    {"ctype_json_prefix_trick", NULL, NULL, "application/jsonp", SOLVE(""), G_NONE, 415, NULL, false},
};
#define N_CASES (sizeof CASES / sizeof CASES[0])

/* --- generated bodies and paths ------------------------------------------------------------- */

static char *repeat_into(char *p, const char *s, size_t times)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < times; i++, p += n)
        memcpy(p, s, n);
    return p;
}

static char *gen_cat(size_t cap, const char *head, const char *unit, size_t times, const char *tail, size_t *len)
{
    char *b = malloc(cap);
    cr_assert_not_null(b);
    char *p = b;
    p = repeat_into(p, head, 1);
    p = repeat_into(p, unit, times);
    p = repeat_into(p, tail, 1);
    *p = '\0';
    *len = (size_t)(p - b);
    cr_assert_lt(*len, cap);
    return b;
}

/* Fills body and len, or path (malloc'd). */
static void generate(gen_kind g, char **body, size_t *len, char **path)
{
    switch (g) {
    case G_NONE: return;
    case G_BODY_10MB:
    case G_BODY_10MB_CHUNKED:
        *body = gen_cat(10u << 20 | 4096, "{" SN ",\"pad\":\"", "x", 10u << 20, "\"}", len);
        return;
    case G_DEEP_ARRAYS: {
        size_t n = 100000;
        char *b = malloc(2 * n + 1);
        memset(b, '[', n);
        memset(b + n, ']', n);
        b[2 * n] = '\0';
        *body = b;
        *len = 2 * n;
        return;
    }
    case G_DEEP_OBJECTS: {
        size_t n = 5000, cap = 16 * n + 256;
        char *b = malloc(cap), *p = b;
        p = repeat_into(p, "{" SN ",\"inputs\":", 1);
        p = repeat_into(p, "{\"a\":", n);
        p = repeat_into(p, "1", 1);
        p = repeat_into(p, "}", n);
        p = repeat_into(p, "}", 1);
        *p = '\0';
        *body = b;
        *len = (size_t)(p - b);
        return;
    }
    case G_MANY_KEYS: {
        size_t n = 20000, cap = 24 * n + 256;
        char *b = malloc(cap), *p = b;
        p += sprintf(p, "{" SN ",\"inputs\":{" RN);
        for (size_t i = 0; i < n; i++)
            p += sprintf(p, ",\"k%zu\":%zu", i, i);
        p += sprintf(p, "}}");
        *body = b;
        *len = (size_t)(p - b);
        return;
    }
    case G_LONG_UNIT:
        *body = gen_cat(210000, "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\",\"workload_data_rate\":\"5 ",
                        "G", 200000, "B/s\"}}", len);
        return;
    case G_LONG_ID_BODY:
        *body = gen_cat(110000, "{" SN ",\"inputs\":{\"hardware\":\"A100\",\"model\":\"", "R", 100000, "\"}}", len);
        return;
    case G_LONG_QUERY:
        *path = gen_cat(21000, "/solve/single_node?hardware=A100&model=", "M", 20000, "", len);
        return;
    case G_OVER_URI:
        *path = gen_cat(41000, "/solve/single_node?hardware=A100&model=", "M", 40000, "", len);
        return;
    case G_HUGE_URI:
        *path = gen_cat(301000, "/solve/single_node?hardware=A100&model=", "M", 300000, "", len);
        return;
    case G_LONG_PATH_ID:
        *path = gen_cat(6000, "/catalog/hardware/", "H", 5000, "", len);
        return;
    case G_LONG_SOLVER:
        *path = gen_cat(6000, "/solve/", "s", 5000, "?model=ResNet50", len);
        return;
    case G_MANY_QUERY_ARGS: {
        char *b = malloc(2000), *p = b;
        p += sprintf(p, "/solve/single_node?model=ResNet50");
        for (int i = 0; i < 100; i++)
            p += sprintf(p, "&k%d=1", i);
        *path = b;
        return;
    }
    case G_BIG_VALUES_AXIS:
        /* 2,000,001 listed values under the 1 MB body limit is impossible, so
         * list 250,000 and multiply by a range of 8: over the default cap of 1e6. */
        *body = gen_cat(700000, "{" SN ",\"inputs\":{" RN "},\"axes\":[{\"input\":\"dp_size\",\"range\":{\"start\":1,"
                                "\"stop\":8,\"step\":1}},{\"input\":\"batch_size\",\"values\":[1",
                        ",1", 250000, "]}]}", len);
        return;
    case G_NUL_IN_BODY: {
        static const char raw[] = "{" SN ",\"inputs\":{\"model\":\"Res\0Net50\",\"hardware\":\"A100\"}}";
        *body = malloc(sizeof raw);
        memcpy(*body, raw, sizeof raw);
        *len = sizeof raw - 1;
        return;
    }
    }
}

/* --- the test ----------------------------------------------------------------------------- */

ParameterizedTestParameters(bad_input, catalogue)
{
    static size_t idx[N_CASES];
    for (size_t i = 0; i < N_CASES; i++)
        idx[i] = i;
    return cr_make_param_array(size_t, idx, N_CASES);
}

ParameterizedTest(size_t *i, bad_input, catalogue, .timeout = 60)
{
    const bad_case *c = &CASES[*i];
    const daemon_t *d = shared_daemon();
    char *body = NULL, *path = NULL;
    size_t len = 0;
    generate(c->gen, &body, &len, &path);
    if (!body && c->body) {
        body = strdup(c->body);
        len = strlen(c->body);
    }
    const char *method = c->method ? c->method : "POST";
    const char *p = path ? path : c->path ? c->path : "/solve";

    const char *headers[4];
    int nh = 0;
    char ct[160];
    if (!c->ctype || c->ctype[0]) {
        snprintf(ct, sizeof ct, "Content-Type: %s", c->ctype ? c->ctype : "application/json");
        if (body || !strcmp(method, "POST"))
            headers[nh++] = ct;
    }
    if (c->gen == G_BODY_10MB_CHUNKED)
        headers[nh++] = "Transfer-Encoding: chunked";
    headers[nh++] = "Expect:"; /* no 100-continue round trip */
    headers[nh] = NULL;

    http_resp r;
    int rc = http_request(d, method, p, headers, body, len, &r);
    cr_assert_eq(rc, 0, "[%s] the request failed at the transport level", c->name);
    cr_expect_eq(r.status, c->status, "[%s] status %ld, expected %d: %.400s", c->name, r.status, c->status, r.body);
    if (!c->transport) {
        cr_expect(strncmp(r.content_type, "application/problem+json", 24) == 0, "[%s] Content-Type '%s'", c->name,
                  r.content_type);
        json_t *j = http_json(&r);
        cr_assert_not_null(j, "[%s] the body is not JSON: %.300s", c->name, r.body);
        cr_expect_eq(json_integer_value(json_object_get(j, "status")), c->status, "[%s] problem status", c->name);
        cr_expect(json_is_string(json_object_get(j, "type")), "[%s] problem without type", c->name);
        cr_expect(json_is_string(json_object_get(j, "title")), "[%s] problem without title", c->name);
        const char *detail = json_string_value(json_object_get(j, "detail"));
        cr_expect(detail && *detail, "[%s] problem without detail", c->name);
        const char *field = json_string_value(json_object_get(j, "field"));
        if (c->field)
            cr_expect(field && !strcmp(field, c->field), "[%s] field '%s', expected '%s' (detail: %s)", c->name,
                      field ? field : "(absent)", c->field, detail ? detail : "");
        else
            cr_expect(!field || !*field, "[%s] field '%s', expected none", c->name, field);
        json_decref(j);
    } else {
        cr_expect_geq(r.status, 400, "[%s]", c->name);
    }
    http_free(&r);
    free(body);
    free(path);

    /* The daemon survived and still answers. */
    cr_assert_eq(http_get(d, "/healthz", &r), 0, "[%s] /healthz did not answer afterwards", c->name);
    cr_assert_eq(r.status, 200, "[%s] /healthz answered %ld afterwards", c->name, r.status);
    http_free(&r);
}

/* The catalogue is as large as the issue asks for. */
Test(bad_input, catalogue_size) { cr_expect_geq(N_CASES, 100, "only %zu bad-input cases", N_CASES); }
