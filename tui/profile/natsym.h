/* Names for native functions, found on the reading side (never in the
 * target): the agent logs a native frame as its module's path, the
 * function's start in the file's own addresses and the module's build id;
 * this reads symbol tables with libelf where gdb and perf find them:
 *
 *   1. the module's own full symbol table (.symtab);
 *   2. a debug file its .gnu_debuglink names, its CRC checked: beside the
 *      module, in the module's .debug/, under /usr/lib/debug plus the
 *      module's directory, then in each symbol directory (plain, and plus
 *      the module's directory);
 *   3. a debug file by build id: .build-id/NN/REST.debug under
 *      /usr/lib/debug, then under each symbol directory;
 *   4. debuginfod (libdebuginfod), when DEBUGINFOD_URLS is set: the
 *      servers it names, through its cache;
 *   5. the exported functions (.dynsym).
 *
 * A debug file found by path counts only when its build id is the loaded
 * module's.  A module gone from disk, or replaced by another build, is
 * still named from a debug file found by the build id logged.
 *
 * A name is "MODULE!symbol", or "MODULE+0xADDRESS" when the function has
 * no symbol (a stripped module's internal functions), or no file and no
 * debug file has it.  The vDSO has no file (its path is its name,
 * "linux-vdso.so.1"): it is named from this process's own vDSO when that
 * has the build id logged.  Where each module's names came from is kept
 * for the report to say. */
#ifndef CLRSCOPE_NATSYM_H
#define CLRSCOPE_NATSYM_H

#include <stddef.h>
#include <stdint.h>

struct natsym;

/* How well a module's functions could be named. */
enum natsym_state {
	NATSYM_SYMBOLS,  /* a full symbol table (.symtab, or a debug file's) */
	NATSYM_EXPORTS,  /* stripped: only exported functions have names */
	NATSYM_MISSING,  /* the file is not there (deleted, or another machine's) */
	NATSYM_REPLACED, /* the file there is not the one that was loaded */
	NATSYM_UNREADABLE, /* not an ELF file this can read */
};

/* Where a module's names came from. */
enum natsym_source {
	NATSYM_FROM_NOWHERE,   /* no symbols: functions are named by address */
	NATSYM_FROM_SYMTAB,    /* the module's own .symtab */
	NATSYM_FROM_DEBUGLINK, /* the debug file its .gnu_debuglink names */
	NATSYM_FROM_BUILD_ID,  /* a debug file under a .build-id directory */
	NATSYM_FROM_DEBUGINFOD, /* a debug file a debuginfod server sent */
	NATSYM_FROM_DYNSYM,    /* its exported functions only */
	NATSYM_FROM_VDSO,      /* this process's own vDSO (the same kernel's) */
};

/* What the report says of a module. */
struct natsym_module_info {
	const char *path;
	enum natsym_state state;
	enum natsym_source source;
	const char *debug_file; /* the debug file read ("" for none) */
	const char *debug_link; /* the file name its .gnu_debuglink asks for ("" for none) */
	const char *build_id;   /* the loaded module's build id in hex ("" when not logged) */
};

/* The symbol directories this run of clrscope searches after the system's
 * (--symbols, CLRSCOPE_SYMBOLS, the config file's symbols keys; in that
 * order), copied.  Set before sessions are read; the last call holds. */
void natsym_set_dirs(const char *const *dirs, size_t ndirs);

struct natsym *natsym_new(void);
void natsym_free(struct natsym *ns);

/* The name of the function starting at file_address in the module at path
 * (build_id: the loaded module's, raw; may be empty) into out. */
void natsym_name(struct natsym *ns, const char *path, uint64_t file_address, const uint8_t *build_id,
		 size_t build_id_len, char *out, size_t outlen);

/* The modules asked about so far, in the order first asked. */
size_t natsym_modules(const struct natsym *ns);
void natsym_module(const struct natsym *ns, size_t i, struct natsym_module_info *out);
/* "symbols", "exports", "missing", "replaced", "unreadable" */
const char *natsym_state_name(enum natsym_state state);
/* "symtab", "debuglink", "build-id", "debuginfod", "dynsym", "vdso"; NULL for nowhere */
const char *natsym_source_name(enum natsym_source source);
/* Where a module's names came from and why not better, in a sentence for
 * a report, into out. */
void natsym_module_text(const struct natsym_module_info *m, char *out, size_t outlen);

#endif
