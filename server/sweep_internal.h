/* sweep_internal.h - what the files of the sweep share: the sweep's state
 * (struct sweep_stream) and the functions one file of it offers another.
 * Only the sweep's own files include it: sweep.c (the request to a stream),
 * sweep_request.c (reading the request and its axes), sweep_point.c (a
 * point's inputs and its solve), sweep_format.c (rows as JSON, CSV, NDJSON),
 * sweep_transitions.c (crossovers of categorical outputs), sweep_lanes.c
 * (rows on helper threads), sweep_space.c
 * (the search-space API for optimize.c) and sweep_query.c (a GET sweep's
 * query read straight into the sweep). Everyone else uses sweep.h. */
#ifndef MLSYSD_SWEEP_INTERNAL_H
#define MLSYSD_SWEEP_INTERNAL_H

#include <stdint.h>
#include <time.h>

#include "server/sweep.h"

#define MAX_AXES 8
#define CODE_NULL 253            /* a categorical output that is null by design: a value like any other */
#define CODE_ERROR 254           /* the point failed: it has no value, so no transition to or from it */
#define CODE_UNKNOWN 255         /* more distinct values than we intern: not compared */
#define MAX_INTERNED 253
#define TRANSITIONS_MAX 10000
#define WINDOW_MAX_BYTES (32u << 20)
#define CHUNK 32768

typedef enum { FMT_JSON, FMT_CSV, FMT_NDJSON } sweep_format;
typedef enum { AX_VALUES, AX_RANGE, AX_GEOMSPACE } axis_form;

#define MEMBER_AXIS_MAX 10000   /* values of an axis over a record's member: each is a record */

/* What a point sets into its input. */
typedef struct {
    double num;           /* numbers (SI), integers, booleans 0/1 */
    bool was_int;         /* IN_NUMBER written as an integer literal: messages print "2", not "2.0" */
    double unit_scale;    /* IN_QUANTITY: as input_value.unit_scale */
    bool is_null;         /* a nullable input swept through null */
    int enum_index;
    bool enum_respelled;  /* as input_value.enum_respelled */
    unsigned char ref_kind;
    const void *ref;      /* catalog record, or one in the sweep's store */
    const input_item *items;
    int n_items;
} axis_value;

#define GEO_TABLE_MAX 8192 /* geomspace values kept per axis (64 KiB) */

typedef struct {
    int input;
    const input_desc *d;
    axis_form form;
    size_t n;
    bool numeric;
    const json_t *spec;       /* the values array or range/geomspace object (lives while sweep_start runs) */
    const json_t *first;      /* a valid JSON value of the input, to parse the base inputs with */
    double start, stop, step; /* range / geomspace, SI */
    double *geo;              /* a geomspace's values (sweep_axis_form_num's), computed once when short: NULL otherwise */
    bool int_bounds;          /* range given as integer literals: its values print as integers in messages */
    axis_value *vals;         /* AX_VALUES, and every member axis */
    /* An axis over one member of a record input ("fleet.count"): each value is
     * the input's record with that member set. */
    bool member;
    char label[96];           /* the axis's name in columns: "fleet.count" */
    json_t *member_vals;      /* the member's values as given (or computed from a range) */
    json_t *first_obj;        /* the record of value 0, for parsing the base inputs */
    /* GET /sweep/{solver}: the listed values as query text ("32,64,128" split
     * at its commas, in texts_buf), parsed as GET /solve parses an argument;
     * NULL for a body's axes. */
    char *texts_buf;
    char **texts;
} axis;

typedef struct {
    unsigned long long from_point;  /* the point before the change; the other is from_point + stride[axis] */
    uint8_t axis, col, from, to;
} transition;

typedef struct sweep_lanes sweep_lanes;

typedef union {
    const char *s;
    double num;
} interned_value;

struct sweep_stream {
    const solver_desc *s;
    const catalog_edition *ed;
    sweep_format fmt;
    bool from_query;                    /* GET /sweep/{solver}: error fields name inputs, not body paths */
    axis axes[MAX_AXES];
    int n_axes;
    int checked[MAX_AXES];              /* axis inputs in input order: the order /solve checks bounds in */
    unsigned long long points, next;
    unsigned long long first, end;      /* this shard's points: [first, end) of [0, points) */
    unsigned long long shard_index, shard_count; /* shard_count 0: not sharded */
    bool with_index;                    /* rows start with the point's global index */
    unsigned long long stride[MAX_AXES];
    int out_cols[SOLVER_MAX_OUTPUTS];   /* projected outputs */
    bool qualified[SOLVER_MAX_OUTPUTS]; /* output shares its name with an axis input: column "result.<name>" */
    int n_out;
    solver_inputs *in;
    solver_outputs *out;
    solver_error se;                    /* the last point's error (sweep_eval_point) */
    input_store *owned;                 /* records of axis values */
    strbuf buf;
    size_t buf_pos;
    /* NDJSON: each row's member names, written once by the header (`{"<axis>":`,
     * `,"<axis>":`, `,"<output>":`, `,"error":`); key i is nd_keys.data[nd_key_end[i - 1]
     * .. nd_key_end[i]). The stream owns them; its lanes read them. */
    strbuf nd_keys;
    size_t nd_key_end[1 + MAX_AXES + SOLVER_MAX_OUTPUTS + 1];
    int stage;                          /* 0 header, 1 rows, 2 trailer, 3 done */
    /* transitions (JSON only) */
    int cat_cols[SOLVER_MAX_OUTPUTS];   /* indices into out_cols that are categorical */
    int n_cat;
    uint8_t *window;                    /* codes of the last `window_len` points, ring-indexed by point */
    unsigned long long window_len;
    bool transitions_omitted;
    transition *trans;
    size_t n_trans;
    bool trans_truncated;
    /* each categorical column's distinct values: strings (and booleans as
     * "true"/"false") by pointer, integers by value; n_cat rows, allocated
     * with the window (a sweep without transitions has none) */
    interned_value (*interned)[MAX_INTERNED];
    int n_interned[SOLVER_MAX_OUTPUTS];
    calibration_mode calibration;       /* set into every point's inputs */
    struct timespec t0;
    double timeout;
    bool timed_out;
    unsigned solver_index;
    int lane_threads;                   /* threads the rows may use (--sweep-threads) */
    sweep_lanes *lanes;                 /* helper threads writing rows; NULL: this thread alone */
    /* A helper lane's copy of a stream with transitions: instead of tracking
     * them (the window is the stream's), each row keeps its categorical values
     * and whether it failed, for the stream to track in point order. */
    output_value *lane_vals;            /* n_cat per point from lane_from */
    bool *lane_failed;
    unsigned long long lane_from;
};

/* --- reading the request (sweep_request.c) --------------------------------- */

/* An explicit format wins; otherwise the first of our types that Accept
 * lists (clients list their preference first; q-values are not weighed). */
sweep_format sweep_format_from(const char *f, const char *accept, bool *ok);

/* The projected outputs: a body's "outputs" array (NULL: every output). */
int sweep_parse_outputs(sweep_stream *st, const json_t *outs, api_error *err);
/* Project output `name` (a record output: its members), the pos'th one listed
 * (for the field "outputs[pos]" of errors); NULL name: not a string. */
int sweep_add_output(sweep_stream *st, const char *name, size_t pos, api_error *err);

/* shard: {"index": 3, "count": 16}, or "3/16" (the query's form, which the CLI's --shard passes on). */
int sweep_parse_shard(sweep_stream *st, const json_t *j, api_error *err);
/* shard as text: "3/16". */
int sweep_shard_text(sweep_stream *st, const char *text, api_error *err);

/* The body's axes and inputs: the points, under the cap, and the inputs every
 * point starts from. Needs st->s and st->ed. */
int sweep_parse_space(sweep_stream *st, const json_t *body, unsigned long long cap, api_error *err);

/* The pieces of sweep_parse_space that a GET sweep's query (sweep_query.c) shares. */

/* Axis i sweeps the input called `name` ("batch_size"; "fleet.count": a member
 * of a record input): its input, label and kind. An unknown input (or NULL
 * name), a member of an input that is not a record, or an input that an
 * earlier axis sweeps is a 400. */
int sweep_bind_axis(sweep_stream *st, size_t i, const char *name, api_error *err);
/* All the points, under the cap (or the shard's under it), and the strides. */
int sweep_count_points(sweep_stream *st, unsigned long long cap, api_error *err);
/* Once the sweep fits the cap: parse axis i's listed values (JSON, or its
 * texts) and a member axis's records, each `base` (the record input's fixed
 * value, an id or an object; NULL if none) with the member set. */
int sweep_fill_axis(sweep_stream *st, size_t i, const json_t *base, api_error *err);
/* The point's inputs and outputs (st->in, st->out), unfilled. */
int sweep_alloc_point(sweep_stream *st, api_error *err);
/* A point's outputs, quiet (rows carry no warnings or trace); NULL when out of memory. */
solver_outputs *sweep_new_outputs(void);
/* After the inputs every point starts from are parsed into st->in: check the
 * fixed ones (not an axis's) once, and note the axis inputs in input order. */
int sweep_check_fixed(sweep_stream *st, api_error *err);

/* --- a GET sweep's query (sweep_query.c) ----------------------------------- */

/* GET /sweep/{solver}?a=1,2&b=x: a comma-separated value makes that input an
 * axis, format, outputs, shard and index are the body's members as text, and
 * everything else is a fixed input read as GET /solve reads it. Fills st as
 * sweep_start's body path does (format, outputs, index, shard, the space);
 * the envelope (catalog, calibration) is front_read_query's. */
int sweep_read_query(sweep_stream *st, const app_request *req, unsigned long long cap, api_error *err);

/* --- points (sweep_point.c) ------------------------------------------------ */

/* Point p's index along axis a (points run through the axes' product, the last axis fastest). */
static inline size_t sweep_axis_index(const sweep_stream *st, int a, unsigned long long p)
{
    return (size_t)((p / st->stride[a]) % st->axes[a].n);
}

/* Value k of a range or geomspace, in SI. */
double sweep_axis_form_num(const axis *ax, size_t k);

/* Value k of a numeric axis, in SI. Ranges and geomspaces are computed, not stored. */
double sweep_axis_num(const axis *ax, size_t k);

/* Solve point p into st->out: NULL, or the point's error (in st->se). */
const char *sweep_eval_point(sweep_stream *st, unsigned long long p, size_t idx[MAX_AXES]);

/* --- names and values as rows show them (sweep_names.c) ------------------- */

/* An axis value as rows show it: numbers in the input's declared unit, catalog keys, enum names. */
void sweep_put_axis_value(const sweep_stream *st, strbuf *b, int a, size_t k, bool csv);
/* Output k's name into b (qualified "result." when it shares a name with an input), and quoted. */
void sweep_put_output_name(const sweep_stream *st, strbuf *b, int k);
void sweep_json_output_name(const sweep_stream *st, strbuf *b, int k);

/* --- output formats (sweep_format.c) --------------------------------------- */

const char *sweep_axis_unit(const sweep_stream *st, int a);

void sweep_write_header(sweep_stream *st);

void sweep_write_row(sweep_stream *st, unsigned long long p);

/* CSV and NDJSON end with one more line when the sweep was cut off, so a
 * client that reads to the end learns the data is incomplete. */
void sweep_write_trailer(sweep_stream *st);

/* --- transitions (sweep_transitions.c) ------------------------------------- */

/* JSON transitions: the window must reach back one step on every axis that varies. */
void sweep_setup_transitions(sweep_stream *st);

/* Compare point q with its neighbour one step back on each axis, then keep
 * q's codes in the window for the points that will look back at it. */
void sweep_track_transitions(sweep_stream *st, unsigned long long q, const size_t idx[MAX_AXES], bool failed);
/* The same for a point whose categorical outputs were kept elsewhere (a
 * helper lane's row): vals[c] is the value of categorical column c. */
void sweep_track_values(sweep_stream *st, unsigned long long q, const size_t idx[MAX_AXES], bool failed,
                        const output_value *vals);

void sweep_write_transition(sweep_stream *st, const transition *t);

/* --- lanes: rows on helper threads (sweep_lanes.c) ------------------------ */

/* Up to threads - 1 helpers for st's rows, when it is worth it (thousands of
 * points left) and the budget has them; NULL: st writes its rows alone. Needs
 * st->in set. */
sweep_lanes *sweep_lanes_start(sweep_stream *st, int threads);
/* The next span of points: the caller's part written into st->buf, the
 * helpers' parts into their buffers (sweep_lanes_next hands them out in
 * order), and with transitions, the helpers' points tracked after the
 * caller's, in point order; st->next moves past the span. Returns the points
 * written; a helper's failed buffer marks st->buf.oom. */
unsigned long long sweep_lanes_span(sweep_stream *st, sweep_lanes *l);
/* Swaps the next helper part of the last span into *buf (the spent buffer
 * goes back to the lane); false when all are out. */
bool sweep_lanes_next(sweep_lanes *l, strbuf *buf);
/* Stops and joins the helpers, their budget back. NULL is a no-op. */
void sweep_lanes_free(sweep_lanes *l);

/* --- the stream (sweep.c) -------------------------------------------------- */

bool sweep_timed_out(sweep_stream *st);

#endif
