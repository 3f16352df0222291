/* Reading /proc for the process listing and the IPC client: a process's
 * files, the runtime settings in its environment, the files it maps. */
#ifndef CLRSCOPE_PROCFS_H
#define CLRSCOPE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The whole of /proc/PID/NAME, NUL-terminated (the length excludes that
 * NUL); NULL with errno on failure. */
char *proc_read(pid_t pid, const char *name, size_t *len);

/* The value of NAME in an environ block (NAME=VALUE\0...), or NULL. */
const char *proc_env_get(const char *env, size_t len, const char *name);

/* A runtime setting as CoreCLR reads it: DOTNET_NAME, else COMPlus_NAME.
 * Returns the variable that is set ("DOTNET_EnableDiagnostics") with its
 * value in *value, or NULL. */
const char *proc_clr_config(const char *env, size_t len, const char *name, const char **value);

/* If the runtime's diagnostics are off in this environment, the setting
 * that turns them off ("DOTNET_EnableDiagnostics=0"); NULL when on.  With
 * profiler, also the settings that only stop profilers
 * (EnableDiagnostics_Profiler); without, those that stop the IPC socket
 * (EnableDiagnostics_IPC). */
const char *proc_diagnostics_off(const char *env, size_t len, bool profiler, char *buf, size_t n);

/* Whether /proc/PID/maps text maps a file whose name starts with prefix
 * and ends with suffix (suffix may be NULL); the first such path is copied
 * to path when given. */
bool proc_maps_file(const char *maps, const char *prefix, const char *suffix, char *path, size_t n);

/* The runtime version from the directory of the mapped libcoreclr.so
 * (".../Microsoft.NETCore.App/10.0.12/libcoreclr.so" gives "10.0.12"):
 * false when libcoreclr.so is not mapped from such a directory. */
bool proc_maps_runtime_version(const char *maps, char *out, size_t n);

#endif
