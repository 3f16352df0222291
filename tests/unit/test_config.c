#include <linux/capability.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "check.h"
#include "common/session.h"
#include "testutil.h"
#include "util/age.h"
#include "util/config.h"

static char *base; /* XDG_CONFIG_HOME for the tests */
static char file[600];

static void write_config(const char *text)
{
	write_file(file, text, strlen(text));
	chmod(file, 0600);
}

/* config_load with its warnings caught in *out (freed by the caller). */
static int load(struct config *c, char **out)
{
	size_t len;
	FILE *warn = open_memstream(out, &len);
	int r = config_load(c, warn);
	fclose(warn);
	return r;
}

/* Takes root's power to read and search any file (CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH) out of its effective capabilities, or puts it back,
 * so that root meets a file's mode as another user would; -1 when the
 * capabilities cannot be changed. */
static int dac_override(bool on)
{
	struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
	uint32_t bits = 1u << CAP_DAC_OVERRIDE | 1u << CAP_DAC_READ_SEARCH;
	if (syscall(SYS_capget, &head, caps) != 0)
		return -1;
	caps[0].effective = on ? caps[0].effective | bits : caps[0].effective & ~bits;
	return (int)syscall(SYS_capset, &head, caps);
}

static void defaults(void)
{
	struct config c;
	char *warn;
	unlink(file);
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK_STR(warn, "");
	CHECK_EQ_U(c.rate, CS_RATE_DEFAULT);
	CHECK_STR(c.events, "");
	CHECK(c.color);
	CHECK_EQ_U(c.history_size, 1000);
	CHECK_EQ_U(c.napp_dirs, 0);
	CHECK_STR(c.path, file);
	config_free(&c);
	free(warn);

	/* comments and blank lines only */
	write_config("# nothing here\n\n   \n\t# indented comment\n");
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK_STR(warn, "");
	CHECK_EQ_U(c.rate, CS_RATE_DEFAULT);
	config_free(&c);
	free(warn);
}

static void paths(void)
{
	char out[512], want[600];
	CHECK(config_path("config", out, sizeof out) == 0);
	CHECK_STR(out, file);
	char *saved = strdup(getenv("XDG_CONFIG_HOME"));
	setenv("XDG_CONFIG_HOME", "relative/ignored", 1);
	setenv("HOME", "/home/someone", 1);
	CHECK(config_path("config", out, sizeof out) == 0);
	CHECK_STR(out, "/home/someone/.config/clrscope/config");
	unsetenv("XDG_CONFIG_HOME");
	CHECK(config_path("apps", out, sizeof out) == 0);
	CHECK_STR(out, "/home/someone/.config/clrscope/apps");
	setenv("XDG_CONFIG_HOME", saved, 1);
	snprintf(want, sizeof want, "%s/clrscope/config", saved);
	CHECK(config_path("config", out, sizeof out) == 0);
	CHECK_STR(out, want);
	free(saved);
}

static void prune_ages(void)
{
	long s;
	CHECK(age_parse("90", &s) == 0 && s == 90);
	CHECK(age_parse("30m", &s) == 0 && s == 1800);
	CHECK(age_parse("7d", &s) == 0 && s == 7 * 86400);
	CHECK(age_parse("2w", &s) == 0 && s == 14 * 86400);
	CHECK(age_parse("7days", &s) < 0 && age_parse("d", &s) < 0 && age_parse("-1h", &s) < 0 &&
	      age_parse("99999999999w", &s) < 0);
	char text[16];
	age_format(7 * 86400, text, sizeof text);
	CHECK_STR(text, "1w");
	age_format(36 * 3600, text, sizeof text);
	CHECK_STR(text, "36h");
	age_format(61, text, sizeof text);
	CHECK_STR(text, "61s");
	write_config("prune_after = never\n");
	struct config c;
	char *warn;
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK(c.prune_after_s == -1);
	config_free(&c);
	free(warn);
	write_config("prune_after = 0d\n");
	CHECK_EQ_U(load(&c, &warn), 1);
	CHECK(strstr(warn, "prune_after wants an age") != NULL);
	CHECK(c.prune_after_s == 0);
	config_free(&c);
	free(warn);
}

static void every_key(void)
{
	setenv("HOME", "/home/someone", 1);
	write_config("# settings\n"
		     "rate = 321\n"
		     "  events   =   gc, exceptions  \n"
		     "color = no\n"
		     "history_size = 0\n"
		     "app_dir = /opt/apps\n"
		     "\n"
		     "app_dir = ~/dotnet apps\r\n"
		     "app_dir=~\n"
		     "prune_after = 36h\n"
		     "symbols = ~/symbols\n"
		     "symbols = /srv/debug\n");
	struct config c;
	char *warn;
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK(c.prune_after_s == 36 * 3600);
	CHECK_STR(warn, "");
	CHECK_EQ_U(c.rate, 321);
	CHECK_STR(c.events, "gc,exceptions");
	CHECK(!c.color);
	CHECK_EQ_U(c.history_size, 0);
	CHECK_EQ_U(c.napp_dirs, 3);
	if (c.napp_dirs == 3) {
		CHECK_STR(c.app_dirs[0], "/opt/apps");
		CHECK_STR(c.app_dirs[1], "/home/someone/dotnet apps");
		CHECK_STR(c.app_dirs[2], "/home/someone");
		CHECK_EQ_U(c.app_dir_lines[0], 6);
		CHECK_EQ_U(c.app_dir_lines[1], 8);
		CHECK_EQ_U(c.app_dir_lines[2], 9);
	}
	CHECK_EQ_U(c.nsymbol_dirs, 2);
	if (c.nsymbol_dirs == 2) {
		CHECK_STR(c.symbol_dirs[0], "/home/someone/symbols");
		CHECK_STR(c.symbol_dirs[1], "/srv/debug");
	}
	config_free(&c);
	CHECK_EQ_U(c.napp_dirs, 0);
	CHECK_EQ_U(c.nsymbol_dirs, 0);
	CHECK(c.app_dirs == NULL);
	CHECK_EQ_U(c.rate, 321); /* the rest stays usable */
	CHECK_STR(c.events, "gc,exceptions");
	free(warn);

	/* the edges of the ranges, and the last of a repeated key wins */
	write_config("rate = 1\nrate = 10000\nhistory_size = 100000\nevents = none\ncolor = yes\nevents = all\n");
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK_EQ_U(c.rate, 10000);
	CHECK_EQ_U(c.history_size, 100000);
	CHECK_STR(c.events, "all");
	CHECK(c.color);
	config_free(&c);
	free(warn);

	/* color = auto follows NO_COLOR; yes does not (the UI checks NO_COLOR itself) */
	write_config("color = auto\n");
	unsetenv("NO_COLOR");
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK(c.color);
	config_free(&c);
	free(warn);
	setenv("NO_COLOR", "1", 1);
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK(!c.color);
	config_free(&c);
	free(warn);
	setenv("NO_COLOR", "", 1); /* empty: not set */
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK(c.color);
	config_free(&c);
	free(warn);
	setenv("NO_COLOR", "1", 1);
	write_config("color = yes\n");
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK(c.color);
	config_free(&c);
	free(warn);
	unsetenv("NO_COLOR");
}

static void expect_warning(const char *warn, unsigned line, const char *what)
{
	char want[1024];
	snprintf(want, sizeof want, "clrscope: %s:%u: %s", file, line, what);
	if (!strstr(warn, want)) {
		fprintf(stderr, "wanted \"%s\" in:\n%s", want, warn);
		check_failures++;
	}
}

static void bad_lines(void)
{
	write_config("rate = 300\n"                 /* 1 */
		     "this has no equals sign\n"    /* 2 */
		     "theme = dark\n"               /* 3 */
		     "rate = 0\n"                   /* 4 */
		     "rate = 10001\n"               /* 5 */
		     "rate = 12abc\n"               /* 6 */
		     "rate = -5\n"                  /* 7 */
		     "events = +gc\n"               /* 8 */
		     "events = gc,-jit\n"           /* 9 */
		     "events = gc,bogus\n"          /* 10 */
		     "color = maybe\n"              /* 11 */
		     "history_size = 100001\n"      /* 12 */
		     "app_dir = relative/dir\n"     /* 13 */
		     "history_size =\n"             /* 14 */
		     "= 5\n"                        /* 15 */
		     "Rate = 5\n"                   /* 16 */
		     "events = jit\n"               /* 17: good lines still apply */
		     "app_dir = /good\n"            /* 18 */
		     "rate = 99999999999999999999\n" /* 19 */
		     "history_size = 7\n");         /* 20 */
	struct config c;
	char *warn;
	CHECK_EQ_U(load(&c, &warn), 16);
	expect_warning(warn, 2, "no '='; want KEY = VALUE");
	expect_warning(warn, 3, "unknown key 'theme'");
	expect_warning(warn, 4, "rate wants a whole number of Hz from 1 to 10000, not '0'");
	expect_warning(warn, 5, "rate wants a whole number of Hz from 1 to 10000, not '10001'");
	expect_warning(warn, 6, "rate wants a whole number of Hz from 1 to 10000, not '12abc'");
	expect_warning(warn, 7, "rate wants a whole number of Hz from 1 to 10000, not '-5'");
	expect_warning(warn, 8, "events wants a list of kinds");
	expect_warning(warn, 9, "events wants a list of kinds");
	expect_warning(warn, 10, "events: unknown kind 'bogus'");
	expect_warning(warn, 11, "color wants yes, no or auto, not 'maybe'");
	expect_warning(warn, 12, "history_size wants a whole number from 0 to 100000, not '100001'");
	expect_warning(warn, 13, "app_dir wants an absolute path (or ~/...), not 'relative/dir'");
	expect_warning(warn, 14, "no value after 'history_size ='");
	expect_warning(warn, 15, "no key before '='");
	expect_warning(warn, 16, "unknown key 'Rate'");
	expect_warning(warn, 19, "rate wants");
	/* one line each */
	size_t lines = 0;
	for (const char *p = warn; *p; p++)
		lines += *p == '\n';
	CHECK_EQ_U(lines, 16);
	CHECK_EQ_U(c.rate, 300);
	CHECK_STR(c.events, "jit");
	CHECK_EQ_U(c.history_size, 7);
	CHECK(c.color);
	CHECK_EQ_U(c.napp_dirs, 1);
	if (c.napp_dirs == 1) {
		CHECK_STR(c.app_dirs[0], "/good");
		CHECK_EQ_U(c.app_dir_lines[0], 18);
	}
	config_free(&c);
	free(warn);

	/* warn NULL: silent, same result */
	CHECK_EQ_U(config_load(&c, NULL), 16);
	CHECK_EQ_U(c.rate, 300);
	config_free(&c);

	/* an over-long events list */
	char text[512];
	snprintf(text, sizeof text, "events = ");
	for (int i = 0; i < 60; i++)
		strcat(text, "gc,");
	strcat(text, "gc\n");
	write_config(text);
	CHECK_EQ_U(load(&c, &warn), 1);
	expect_warning(warn, 1, "events: list too long");
	CHECK_STR(c.events, "");
	config_free(&c);
	free(warn);
}

static void refused(void)
{
	struct config c;
	char *warn;
	/* world- and group-writable files are ignored whole */
	write_config("rate = 321\n");
	CHECK(chmod(file, 0666) == 0);
	CHECK(load(&c, &warn) == -1);
	CHECK(strstr(warn, file) != NULL);
	CHECK(strstr(warn, "writable by other users") != NULL);
	CHECK(strstr(warn, "chmod go-w") != NULL);
	CHECK_EQ_U(c.rate, CS_RATE_DEFAULT);
	config_free(&c);
	free(warn);
	CHECK(chmod(file, 0620) == 0);
	CHECK(load(&c, &warn) == -1);
	CHECK(strstr(warn, "writable by other users") != NULL);
	CHECK_EQ_U(c.rate, CS_RATE_DEFAULT);
	config_free(&c);
	free(warn);
	CHECK(chmod(file, 0644) == 0); /* readable by others is fine */
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK_EQ_U(c.rate, 321);
	config_free(&c);
	free(warn);

	/* a symbolic link to a file of one's own is followed ... */
	char real[512];
	snprintf(real, sizeof real, "%s/real-config", base);
	write_file(real, "rate = 55\n", 10);
	chmod(real, 0600);
	unlink(file);
	CHECK(symlink(real, file) == 0);
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK_EQ_U(c.rate, 55);
	config_free(&c);
	free(warn);
	/* ... unless others may write that file */
	CHECK(chmod(real, 0666) == 0);
	CHECK(load(&c, &warn) == -1);
	CHECK(strstr(warn, "symbolic link to a file writable by other users") != NULL);
	CHECK_EQ_U(c.rate, CS_RATE_DEFAULT);
	config_free(&c);
	free(warn);
	CHECK(chmod(real, 0600) == 0);
	if (geteuid() == 0) { /* only root can give a file away */
		CHECK(chown(real, 4321, 4321) == 0);
		CHECK(load(&c, &warn) == -1);
		CHECK(strstr(warn, "symbolic link to a file of another user (uid 4321)") != NULL);
		CHECK_EQ_U(c.rate, CS_RATE_DEFAULT);
		config_free(&c);
		free(warn);
		unlink(file);
		CHECK(rename(real, file) == 0);
		CHECK(load(&c, &warn) == -1);
		CHECK(strstr(warn, "belongs to another user (uid 4321)") != NULL);
		config_free(&c);
		free(warn);
	} else {
		SKIP_PART("a config file of another user: needs root (chown)");
	}
	unlink(file);
	unlink(real);

	/* a dangling link is a missing file */
	CHECK(symlink("/nonexistent/clrscope-config", file) == 0);
	CHECK_EQ_U(load(&c, &warn), 0);
	CHECK_STR(warn, "");
	config_free(&c);
	free(warn);
	unlink(file);

	/* not a regular file */
	CHECK(mkdir(file, 0700) == 0);
	CHECK(load(&c, &warn) == -1);
	CHECK(strstr(warn, "not a regular file") != NULL);
	config_free(&c);
	free(warn);
	rmdir(file);

	/* unreadable (root reads it without its power to read any file) */
	write_config("rate = 7\n");
	CHECK(chmod(file, 0) == 0);
	bool root = geteuid() == 0;
	if (root && dac_override(false) != 0) {
		SKIP_PART("an unreadable config file: root cannot drop CAP_DAC_OVERRIDE here");
	} else {
		CHECK(load(&c, &warn) == -1);
		CHECK(strstr(warn, "cannot read") != NULL);
		CHECK_EQ_U(c.rate, CS_RATE_DEFAULT);
		config_free(&c);
		free(warn);
		if (root)
			CHECK(dac_override(true) == 0);
	}
	unlink(file);
}

int main(void)
{
	base = make_temp_dir();
	char dir[512];
	snprintf(dir, sizeof dir, "%s/clrscope", base);
	mkdir(dir, 0700);
	snprintf(file, sizeof file, "%s/config", dir);
	setenv("XDG_CONFIG_HOME", base, 1);
	unsetenv("NO_COLOR");
	RUN(defaults);
	RUN(paths);
	RUN(every_key);
	RUN(prune_ages);
	RUN(bad_lines);
	RUN(refused);
	remove_tree(base);
	return CHECK_DONE();
}
