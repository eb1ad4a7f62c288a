/* test_config.c - config_parse: defaults, flags and MLSYSD_* variables (a
 * flag wins), strict values that fail fast naming the setting, and --help
 * listing every flag with its variable. Criterion runs each test in its own
 * process, so setenv() here does not leak between tests. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/config.h"

extern char **environ;

/* The developer's shell may export MLSYSD_* (e.g. MLSYSD_PORT): start clean. */
static void clean_env(void)
{
    for (;;) {
        char name[128] = "";
        for (char **e = environ; *e; e++) {
            if (!strncmp(*e, "MLSYSD_", 7)) {
                size_t n = strcspn(*e, "=");
                snprintf(name, sizeof name, "%.*s", (int)n, *e);
                break;
            }
        }
        if (!name[0])
            return;
        unsetenv(name);
    }
}

TestSuite(config, .init = clean_env);

static config_result parse(config *c, char *msg, size_t n, const char *const *args)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"mlsysd";
    for (int i = 0; args && args[i]; i++) {
        cr_assert_lt(argc, 63, "test_config.c: parse() takes at most 62 arguments");
        argv[argc++] = (char *)args[i];
    }
    argv[argc] = NULL;
    config_defaults(c);
    msg[0] = '\0';
    return config_parse(c, argc, argv, msg, n);
}

Test(config, defaults)
{
    config c;
    config_defaults(&c);
    cr_expect_str_eq(c.host, "127.0.0.1");
    cr_expect_eq(c.port, 8080);
    cr_expect_eq(c.threads, 0);
    cr_expect_str_eq(c.catalog_dir, "");
    cr_expect_eq(c.max_body_bytes, 1048576);
    cr_expect_eq(c.sweep_max_points, 1000000);
    cr_expect_eq(c.max_connections, 1024);
    cr_expect_eq(c.max_connections_per_ip, 0);
    cr_expect_eq(c.connection_memory, 40960);
    cr_expect_eq(c.connection_timeout, 30);
    cr_expect_eq(c.request_timeout, 300);
    cr_expect_eq(c.read_timeout, 60);
    cr_expect_str_eq(c.cors_origins, "");
    cr_expect_eq(c.log_level, LOG_INFO);
    cr_expect_eq(c.log_flush_interval, 0.1);
    cr_expect_eq(c.drain_delay, 5);
    cr_expect_eq(c.drain_timeout, 20);
    cr_expect_not(c.healthcheck);
}

Test(config, no_arguments_runs_with_defaults)
{
    config c;
    char msg[300];
    cr_assert_eq(parse(&c, msg, sizeof msg, NULL), CONFIG_RUN);
    cr_expect_eq(c.port, 8080);
}

Test(config, every_flag_sets_its_field)
{
    config c;
    char msg[300];
    static const char *const args[] = {
        "--host", "::1", "--port", "0", "--threads", "3", "--catalog-dir", "/tmp/cat",
        "--max-body-bytes", "4096", "--sweep-max-points=2000000", "--sweep-threads", "3", "--max-connections", "10",
        "--max-connections-per-ip", "4", "--connection-memory", "131072", "--connection-timeout", "7", "--request-timeout", "0.5", "--read-timeout", "2.5",
        "--cors-origins", "http://localhost:3000, https://app.example.com", "--log-level", "WARN",
        "--log-flush-interval", "0", "--drain-delay", "1.5", "--drain-timeout", "0", "--healthcheck", NULL};
    cr_assert_eq(parse(&c, msg, sizeof msg, args), CONFIG_RUN, "%s", msg);
    cr_expect_str_eq(c.host, "::1");
    cr_expect_eq(c.port, 0);
    cr_expect_eq(c.threads, 3);
    cr_expect_str_eq(c.catalog_dir, "/tmp/cat");
    cr_expect_eq(c.max_body_bytes, 4096);
    cr_expect_eq(c.sweep_max_points, 2000000);
    cr_expect_eq(c.sweep_threads, 3);
    cr_expect_eq(c.max_connections, 10);
    cr_expect_eq(c.max_connections_per_ip, 4);
    cr_expect_eq(c.connection_memory, 131072);
    cr_expect_eq(c.connection_timeout, 7);
    cr_expect_eq(c.request_timeout, 0.5);
    cr_expect_eq(c.read_timeout, 2.5);
    cr_expect_eq(c.log_flush_interval, 0.0);
    cr_expect_str_eq(c.cors_origins, "http://localhost:3000, https://app.example.com");
    cr_expect_eq(c.log_level, LOG_WARN);
    cr_expect_eq(c.drain_delay, 1.5);
    cr_expect_eq(c.drain_timeout, 0);
    cr_expect(c.healthcheck);
}

Test(config, every_variable_sets_its_field)
{
    setenv("MLSYSD_HOST", "0.0.0.0", 1);
    setenv("MLSYSD_PORT", "9000", 1);
    setenv("MLSYSD_THREADS", "5", 1);
    setenv("MLSYSD_CATALOG_DIR", "/srv/catalog", 1);
    setenv("MLSYSD_MAX_BODY_BYTES", "65536", 1);
    setenv("MLSYSD_SWEEP_MAX_POINTS", "42", 1);
    setenv("MLSYSD_MAX_CONNECTIONS", "99", 1);
    setenv("MLSYSD_MAX_CONNECTIONS_PER_IP", "3", 1);
    setenv("MLSYSD_CONNECTION_TIMEOUT", "11", 1);
    setenv("MLSYSD_CONNECTION_MEMORY", "65536", 1);
    setenv("MLSYSD_REQUEST_TIMEOUT", "12.5", 1);
    setenv("MLSYSD_READ_TIMEOUT", "9", 1);
    setenv("MLSYSD_CORS_ORIGINS", "*", 1);
    setenv("MLSYSD_LOG_LEVEL", "debug", 1);
    setenv("MLSYSD_DRAIN_DELAY", "0", 1);
    setenv("MLSYSD_DRAIN_TIMEOUT", "60", 1);
    config c;
    char msg[300];
    cr_assert_eq(parse(&c, msg, sizeof msg, NULL), CONFIG_RUN, "%s", msg);
    cr_expect_str_eq(c.host, "0.0.0.0");
    cr_expect_eq(c.port, 9000);
    cr_expect_eq(c.threads, 5);
    cr_expect_str_eq(c.catalog_dir, "/srv/catalog");
    cr_expect_eq(c.max_body_bytes, 65536);
    cr_expect_eq(c.sweep_max_points, 42);
    cr_expect_eq(c.max_connections, 99);
    cr_expect_eq(c.max_connections_per_ip, 3);
    cr_expect_eq(c.connection_timeout, 11);
    cr_expect_eq(c.connection_memory, 65536);
    cr_expect_eq(c.request_timeout, 12.5);
    cr_expect_eq(c.read_timeout, 9);
    cr_expect_str_eq(c.cors_origins, "*");
    cr_expect_eq(c.log_level, LOG_DEBUG);
    cr_expect_eq(c.drain_delay, 0);
    cr_expect_eq(c.drain_timeout, 60);
}

Test(config, flag_wins_over_variable)
{
    setenv("MLSYSD_PORT", "9000", 1);
    setenv("MLSYSD_LOG_LEVEL", "error", 1);
    config c;
    char msg[300];
    static const char *const args[] = {"--port=9100", NULL};
    cr_assert_eq(parse(&c, msg, sizeof msg, args), CONFIG_RUN, "%s", msg);
    cr_expect_eq(c.port, 9100);
    cr_expect_eq(c.log_level, LOG_ERROR, "a variable without a flag still applies");
}

Test(config, empty_variable_is_unset)
{
    setenv("MLSYSD_PORT", "", 1);
    config c;
    char msg[300];
    cr_assert_eq(parse(&c, msg, sizeof msg, NULL), CONFIG_RUN, "%s", msg);
    cr_expect_eq(c.port, 8080);
}

Test(config, a_later_flag_wins)
{
    config c;
    char msg[300];
    static const char *const args[] = {"--threads", "2", "--threads", "4", NULL};
    cr_assert_eq(parse(&c, msg, sizeof msg, args), CONFIG_RUN, "%s", msg);
    cr_expect_eq(c.threads, 4);
}

typedef struct {
    const char *args[4];
    const char *env;       /* "NAME=value" or NULL */
    const char *names;     /* the message must contain this */
} bad_case;

static const bad_case BAD[] = {
    {{"--port", "70000"}, NULL, "--port"},
    {{"--port", "http"}, NULL, "--port"},
    {{"--port", "-1"}, NULL, "--port"},
    {{"--port", "80 "}, NULL, "--port"},
    {{"--port", " 80"}, NULL, "--port"},
    {{"--port", "+80"}, NULL, "--port"},
    {{"--port="}, NULL, "--port"},
    {{"--port"}, NULL, "--port"},
    {{NULL}, "MLSYSD_PORT=99999", "MLSYSD_PORT"},
    {{"--connection-memory", "32768"}, NULL, "--connection-memory"},
    {{NULL}, "MLSYSD_CONNECTION_MEMORY=1g", "MLSYSD_CONNECTION_MEMORY"},
    {{NULL}, "MLSYSD_THREADS=many", "MLSYSD_THREADS"},
    {{NULL}, "MLSYSD_THREADS=-2", "MLSYSD_THREADS"},
    {{NULL}, "MLSYSD_THREADS=1000", "MLSYSD_THREADS"},
    {{"--threads", "1.5"}, NULL, "--threads"},
    {{"--max-body-bytes", "10"}, NULL, "--max-body-bytes"},
    {{"--max-body-bytes", "99999999999999999999999"}, NULL, "--max-body-bytes"},
    {{NULL}, "MLSYSD_SWEEP_MAX_POINTS=0", "MLSYSD_SWEEP_MAX_POINTS"},
    {{"--sweep-max-points", "1e6"}, NULL, "--sweep-max-points"},
    {{"--max-connections", "0"}, NULL, "--max-connections"},
    {{"--max-connections-per-ip", "-1"}, NULL, "--max-connections-per-ip"},
    {{"--connection-timeout", "0"}, NULL, "--connection-timeout"},
    {{"--request-timeout", "0"}, NULL, "--request-timeout"},
    {{"--request-timeout", "5s"}, NULL, "--request-timeout"},
    {{"--read-timeout", "0"}, NULL, "--read-timeout"},
    {{NULL}, "MLSYSD_READ_TIMEOUT=soon", "MLSYSD_READ_TIMEOUT"},
    {{"--drain-delay", "-1"}, NULL, "--drain-delay"},
    {{"--drain-delay", "nan"}, NULL, "--drain-delay"},
    {{"--drain-timeout", "inf"}, NULL, "--drain-timeout"},
    {{NULL}, "MLSYSD_DRAIN_TIMEOUT=7200", "MLSYSD_DRAIN_TIMEOUT"},
    {{"--log-level", "loud"}, NULL, "--log-level"},
    {{NULL}, "MLSYSD_LOG_LEVEL=verbose", "MLSYSD_LOG_LEVEL"},
    {{"--cors-origins", "https://app.example.com/"}, NULL, "--cors-origins"},
    {{"--cors-origins", "app.example.com"}, NULL, "--cors-origins"},
    {{"--cors-origins", "https://a.example, *"}, NULL, "--cors-origins"},
    {{NULL}, "MLSYSD_CORS_ORIGINS=http://x:port", "MLSYSD_CORS_ORIGINS"},
    {{"--healthcheck=yes"}, NULL, "--healthcheck"},
    {{"--no-such-flag", "1"}, NULL, "--no-such-flag"},
    {{"8080"}, NULL, "8080"},
    {{"-p", "8080"}, NULL, "-p"},
    {{"--"}, NULL, "--"},
};

Test(config, invalid_values_fail_naming_the_setting)
{
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const bad_case *b = &BAD[i];
        char envbuf[200] = "";
        if (b->env) {
            snprintf(envbuf, sizeof envbuf, "%s", b->env);
            char *eq = strchr(envbuf, '=');
            *eq = '\0';
            setenv(envbuf, eq + 1, 1);
        }
        config c;
        char msg[300];
        config_result r = parse(&c, msg, sizeof msg, b->args);
        cr_expect_eq(r, CONFIG_EXIT_USAGE, "case %zu (%s %s) was accepted", i, b->args[0] ? b->args[0] : "",
                     b->env ? b->env : "");
        cr_expect(strstr(msg, b->names) != NULL, "case %zu: message '%s' does not name '%s'", i, msg, b->names);
        if (b->env)
            unsetenv(envbuf);
    }
}

Test(config, long_string_is_refused)
{
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    const char *args[] = {"--host", big, NULL};
    config c;
    char msg[300];
    cr_assert_eq(parse(&c, msg, sizeof msg, args), CONFIG_EXIT_USAGE);
    cr_expect(strstr(msg, "--host") && strstr(msg, "too long"), "%s", msg);
}

Test(config, valid_origins)
{
    static const char *const ok[] = {"*", "http://localhost:3000", "https://app.example.com,http://127.0.0.1:8080",
                                     "http://[::1]:8080", " https://a.example ,https://b.example ", NULL};
    for (int i = 0; ok[i]; i++) {
        const char *args[] = {"--cors-origins", ok[i], NULL};
        config c;
        char msg[300];
        cr_expect_eq(parse(&c, msg, sizeof msg, args), CONFIG_RUN, "'%s': %s", ok[i], msg);
    }
}

Test(config, help_and_version_work_despite_a_bad_variable, .init = cr_redirect_stdout)
{
    clean_env();
    setenv("MLSYSD_PORT", "not-a-port", 1);
    config c;
    char msg[300];
    static const char *const help[] = {"--port", "1", "--help", NULL};
    cr_assert_eq(parse(&c, msg, sizeof msg, help), CONFIG_EXIT_OK, "%s", msg);
    static const char *const version[] = {"--version", NULL};
    cr_assert_eq(parse(&c, msg, sizeof msg, version), CONFIG_EXIT_OK, "%s", msg);
    fflush(stdout);
}

/* --help is the list of settings users read: every flag with its variable
 * and default, and each pair must really work. */
Test(config, help_lists_every_flag_with_its_variable)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    config_write_help(f, "mlsysd");
    fclose(f);
    int settings = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char flag[64], metavar[32];
        if (sscanf(line, "  --%63s %31s", flag, metavar) != 2 || !strcmp(metavar, "print") ||
            strstr(line, "  --healthcheck") == line)
            continue;
        char *envline = strtok(NULL, "\n");
        cr_assert(envline, "no env line after --%s", flag);
        char env[64], def[128] = "";
        cr_assert_eq(sscanf(envline, "      env %63[^,], default %127[^\n]", env, def), 2, "--%s: '%s'", flag,
                     envline);
        /* the variable is MLSYSD_ + the flag in upper case with '_' for '-' */
        char want[80] = "MLSYSD_";
        for (size_t i = 0; flag[i]; i++)
            want[7 + i] = flag[i] == '-' ? '_' : (char)(flag[i] >= 'a' && flag[i] <= 'z' ? flag[i] - 32 : flag[i]);
        cr_expect_str_eq(env, want, "--%s", flag);
        /* the default printed is accepted by both the flag and the variable */
        config c1, c2;
        char msg[300];
        const char *dv = strncmp(def, "''", 2) ? def : "";
        char fl[256];
        snprintf(fl, sizeof fl, "--%s=%s", flag, dv);
        const char *args[] = {fl, NULL};
        if (*dv) {
            cr_expect_eq(parse(&c1, msg, sizeof msg, args), CONFIG_RUN, "%s: %s", fl, msg);
            setenv(env, dv, 1);
            cr_expect_eq(parse(&c2, msg, sizeof msg, NULL), CONFIG_RUN, "%s=%s: %s", env, dv, msg);
            unsetenv(env);
            config d;
            config_defaults(&d);
            cr_expect(!memcmp(&c1, &d, sizeof d), "--%s: the printed default %s is not the default", flag, dv);
        }
        settings++;
    }
    cr_expect(settings >= 15, "settings listed in --help: %d", settings);
    free(text);
}
