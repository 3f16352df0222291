/* Names for native functions, found on the reading side (never in the
 * target): the agent logs a native frame as its module's path, the
 * function's start in the file's own addresses and the module's build id;
 * this reads the file's symbol table with libelf (.symtab, else .dynsym,
 * and a separate debug file under /usr/lib/debug when there is one).
 *
 * A name is "MODULE!symbol", or "MODULE+0xADDRESS" when the function has
 * no symbol (a stripped module's internal functions), the file is gone, or
 * it is not the file that was loaded (its build id differs).  The vDSO
 * has no file (its path is its name, "linux-vdso.so.1"): it is named from
 * this process's own vDSO when that has the build id logged.  The reasons
 * are kept per module for the report to say.  The JIT (libclrjit.so) is
 * one function, "[JIT compilation]": its own are nameless and all do that. */
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

struct natsym *natsym_new(void);
void natsym_free(struct natsym *ns);

/* The name of the function starting at file_address in the module at path
 * (build_id: the loaded module's, raw; may be empty) into out. */
void natsym_name(struct natsym *ns, const char *path, uint64_t file_address, const uint8_t *build_id,
		 size_t build_id_len, char *out, size_t outlen);

/* The modules asked about so far, in the order first asked. */
size_t natsym_modules(const struct natsym *ns);
void natsym_module(const struct natsym *ns, size_t i, const char **path, enum natsym_state *state);
/* "symbols", "exports", "missing", "replaced", "unreadable" */
const char *natsym_state_name(enum natsym_state state);
/* The same in a sentence, for a report. */
const char *natsym_state_text(enum natsym_state state);

#endif
