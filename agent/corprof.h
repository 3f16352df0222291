/* corprof.h -- the CoreCLR profiling ABI (COM interfaces, types, constants)
 * declared in plain C11 for Linux x64, for clrscope's agent.
 *
 * Hand-written; not a copy of the MIDL output.  Method order, IIDs, constants
 * and structure layouts were transcribed from, and checked slot by slot
 * against, these files of github.com/dotnet/runtime:
 *   src/coreclr/inc/corprof.idl                  (commit 05284b23e412..:
 *       ICorProfilerCallback..11, ICorProfilerInfo..15, enums, structs)
 *   src/coreclr/pal/prebuilt/inc/corprof.h       (commit f72a1f67a0a3..:
 *       MIDL "C style interface" vtables; it stops at Info12/Callback11 and
 *       was used to cross-check Info..Info12 and Callback..Callback9)
 *   src/coreclr/pal/prebuilt/idl/corprof_i.cpp   (commit 3954e441d551..: IIDs
 *       up to Info14; the Info15 IID is from the uuid() in corprof.idl)
 *   src/coreclr/inc/cor.h                        (commit 14ba0d9abe90..:
 *       IMetaDataImport, IID_IMetaDataImport/2, ASSEMBLYMETADATA)
 *   src/coreclr/inc/corerror.xml and src/coreclr/pal/prebuilt/inc/corerror.h
 *       (CORPROF_E_* values)
 *
 * ABI notes (Linux x64, System V): no __stdcall; every method takes the
 * interface pointer ("self") as its first argument; REFIID/REFGUID/REFCLSID
 * (C++ references in the runtime) are plain pointers; WCHAR is 16 bits
 * (use u"" literals, never L""); ID types are pointer sized.
 *
 * One object, one vtable: the runtime's ICorProfilerInfo object answers every
 * IID_ICorProfilerInfoN with the same pointer, and each ICorProfilerInfoN
 * vtable is ICorProfilerInfo(N-1)'s followed by N's own methods.  Hence the
 * older interface names below are aliases of the newest struct.  Only call a
 * slot whose version you obtained by a successful QueryInterface: on an older
 * runtime the vtable simply ends earlier (see CORPROF_INFOn_SLOTS).  The same
 * holds the other way for ICorProfilerCallback*: the runtime QIs our callback
 * object for Callback11 down to Callback3 and calls only the slots of the
 * version it obtained.
 *
 * IIDs: declared extern here.  Exactly one .c file of a program (the
 * agent's corprof.c) must `#define CORPROF_DEFINE_GUIDS` before
 * `#include "corprof.h"` to emit the definitions.
 *
 * C only (uses _Static_assert); no Windows or PAL headers are involved.
 */
#ifndef CLRSCOPE_CORPROF_H
#define CLRSCOPE_CORPROF_H

#include <stddef.h>
#include <stdint.h>
#include <uchar.h>

/* ------------------------------------------------------------------------ */
/* PAL base types (Linux x64)                                               */
/* ------------------------------------------------------------------------ */

typedef int32_t HRESULT;
typedef uint32_t ULONG;
typedef uint32_t DWORD;
typedef uint32_t ULONG32;
typedef int32_t LONG;
typedef int32_t LONG32;
typedef int32_t BOOL;
typedef uint32_t UINT;
typedef uint8_t UINT8;
typedef uint32_t UINT32;
typedef uint64_t UINT64;
typedef uint16_t USHORT;
typedef uint8_t BYTE;
typedef char16_t WCHAR;
typedef uintptr_t UINT_PTR;
typedef size_t SIZE_T;
typedef void *HANDLE;
typedef void *PVOID;
typedef const BYTE *LPCBYTE;
typedef BYTE *LPBYTE;
typedef WCHAR *LPWSTR;
typedef const WCHAR *LPCWSTR;

typedef struct GUID {
	uint32_t Data1;
	uint16_t Data2;
	uint16_t Data3;
	uint8_t Data4[8];
} GUID;
typedef GUID IID;
typedef GUID CLSID;
typedef const GUID *REFGUID;
typedef const GUID *REFIID;
typedef const GUID *REFCLSID;
typedef const GUID *LPCGUID;

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

/* Profiler ID types: opaque, pointer sized. */
typedef UINT_PTR ProcessID;
typedef UINT_PTR AssemblyID;
typedef UINT_PTR AppDomainID;
typedef UINT_PTR ModuleID;
typedef UINT_PTR ClassID;
typedef UINT_PTR ThreadID;
typedef UINT_PTR ContextID;
typedef UINT_PTR FunctionID;
typedef UINT_PTR ObjectID;
typedef UINT_PTR GCHandleID;
typedef UINT_PTR COR_PRF_ELT_INFO;
typedef UINT_PTR ReJITID;
typedef UINT_PTR COR_PRF_FRAME_INFO; /* valid only during the callback that gave it */
typedef UINT_PTR EVENTPIPE_PROVIDER;
typedef UINT_PTR EVENTPIPE_EVENT;
typedef UINT64 EVENTPIPE_SESSION;
typedef void **ObjectHandleID;

/* Metadata tokens (corhdr.h): 32-bit, high byte = table (mdt*), rest = row. */
typedef uint32_t mdToken;
typedef mdToken mdModule;
typedef mdToken mdTypeRef;
typedef mdToken mdTypeDef;
typedef mdToken mdFieldDef;
typedef mdToken mdMethodDef;
typedef mdToken mdParamDef;
typedef mdToken mdInterfaceImpl;
typedef mdToken mdMemberRef;
typedef mdToken mdCustomAttribute;
typedef mdToken mdPermission;
typedef mdToken mdSignature;
typedef mdToken mdEvent;
typedef mdToken mdProperty;
typedef mdToken mdModuleRef;
typedef mdToken mdTypeSpec;
typedef mdToken mdAssembly;
typedef mdToken mdAssemblyRef;
typedef mdToken mdFile;
typedef mdToken mdExportedType;
typedef mdToken mdManifestResource;
typedef mdToken mdGenericParam;
typedef mdToken mdMethodSpec;
typedef mdToken mdGenericParamConstraint;
typedef mdToken mdString;

#define mdTokenNil ((mdToken)0)
#define mdtModule UINT32_C(0x00000000)
#define mdtTypeRef UINT32_C(0x01000000)
#define mdtTypeDef UINT32_C(0x02000000)
#define mdtFieldDef UINT32_C(0x04000000)
#define mdtMethodDef UINT32_C(0x06000000)
#define mdtParamDef UINT32_C(0x08000000)
#define mdtInterfaceImpl UINT32_C(0x09000000)
#define mdtMemberRef UINT32_C(0x0a000000)
#define mdtCustomAttribute UINT32_C(0x0c000000)
#define mdtPermission UINT32_C(0x0e000000)
#define mdtSignature UINT32_C(0x11000000)
#define mdtEvent UINT32_C(0x14000000)
#define mdtProperty UINT32_C(0x17000000)
#define mdtModuleRef UINT32_C(0x1a000000)
#define mdtTypeSpec UINT32_C(0x1b000000)
#define mdtAssembly UINT32_C(0x20000000)
#define mdtAssemblyRef UINT32_C(0x23000000)
#define mdtFile UINT32_C(0x26000000)
#define mdtExportedType UINT32_C(0x27000000)
#define mdtManifestResource UINT32_C(0x28000000)
#define mdtGenericParam UINT32_C(0x2a000000)
#define mdtMethodSpec UINT32_C(0x2b000000)
#define mdtGenericParamConstraint UINT32_C(0x2c000000)
#define mdtString UINT32_C(0x70000000)
#define mdtName UINT32_C(0x71000000)
#define mdtBaseType UINT32_C(0x72000000)
#define TypeFromToken(tk) ((uint32_t)(tk) & UINT32_C(0xff000000))
#define RidFromToken(tk) ((uint32_t)(tk) & UINT32_C(0x00ffffff))
#define TokenFromRid(rid, type) ((mdToken)((uint32_t)(rid) | (uint32_t)(type)))

typedef uint32_t CorElementType; /* an enum (int sized) in corhdr.h */
typedef BYTE COR_SIGNATURE;
typedef COR_SIGNATURE *PCOR_SIGNATURE;
typedef const COR_SIGNATURE *PCCOR_SIGNATURE;
typedef void *HCORENUM;
typedef const char *MDUTF8CSTR;
typedef const void *UVCP_CONSTANT;

/* CorOpenFlags (cor.h), for GetModuleMetaData's dwOpenFlags. */
#define ofRead UINT32_C(0x00000000)
#define ofWrite UINT32_C(0x00000001)

_Static_assert(sizeof(GUID) == 16, "GUID must be 16 bytes");
_Static_assert(sizeof(WCHAR) == 2, "WCHAR must be 16-bit");
_Static_assert(sizeof(HRESULT) == 4 && sizeof(ULONG) == 4 && sizeof(DWORD) == 4 && sizeof(BOOL) == 4,
	       "32-bit PAL scalar types");
_Static_assert(sizeof(FunctionID) == 8 && sizeof(ClassID) == 8 && sizeof(ModuleID) == 8 &&
		       sizeof(AssemblyID) == 8 && sizeof(AppDomainID) == 8 && sizeof(ThreadID) == 8 &&
		       sizeof(ObjectID) == 8 && sizeof(GCHandleID) == 8 && sizeof(ReJITID) == 8 &&
		       sizeof(COR_PRF_FRAME_INFO) == 8 && sizeof(UINT_PTR) == 8,
	       "profiler IDs are 8 bytes on x64");
_Static_assert(sizeof(mdToken) == 4, "metadata tokens are 32-bit");

/* ------------------------------------------------------------------------ */
/* HRESULTs                                                                 */
/* ------------------------------------------------------------------------ */

#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr) (((HRESULT)(hr)) < 0)

#define S_OK ((HRESULT)0x00000000)
#define S_FALSE ((HRESULT)0x00000001)
#define E_NOTIMPL ((HRESULT)0x80004001u)
#define E_NOINTERFACE ((HRESULT)0x80004002u)
#define E_POINTER ((HRESULT)0x80004003u)
#define E_FAIL ((HRESULT)0x80004005u)
#define E_UNEXPECTED ((HRESULT)0x8000FFFFu)
#define E_OUTOFMEMORY ((HRESULT)0x8007000Eu)
#define E_INVALIDARG ((HRESULT)0x80070057u)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110u)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111u)

/* corerror.xml / corerror.h: EMAKEHR(0x13xx) = 0x8013xxxx. */
#define CORPROF_E_FUNCTION_NOT_COMPILED ((HRESULT)0x80131350u)
#define CORPROF_E_DATAINCOMPLETE ((HRESULT)0x80131351u)
#define CORPROF_E_FUNCTION_NOT_IL ((HRESULT)0x80131354u)
#define CORPROF_E_NOT_MANAGED_THREAD ((HRESULT)0x80131355u)
#define CORPROF_E_CALL_ONLY_FROM_INIT ((HRESULT)0x80131356u)
#define CORPROF_E_NOT_YET_AVAILABLE ((HRESULT)0x8013135Bu)
#define CORPROF_E_TYPE_IS_PARAMETERIZED ((HRESULT)0x8013135Cu)
#define CORPROF_E_FUNCTION_IS_PARAMETERIZED ((HRESULT)0x8013135Du)
#define CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD ((HRESULT)0x8013135Eu)
#define CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX ((HRESULT)0x8013135Fu)
#define CORPROF_E_STACKSNAPSHOT_UNSAFE ((HRESULT)0x80131360u)
#define CORPROF_E_STACKSNAPSHOT_ABORTED ((HRESULT)0x80131361u)
#define CORPROF_E_LITERALS_HAVE_NO_ADDRESS ((HRESULT)0x80131362u)
#define CORPROF_E_UNSUPPORTED_CALL_SEQUENCE ((HRESULT)0x80131363u)
#define CORPROF_E_ASYNCHRONOUS_UNSAFE ((HRESULT)0x80131364u)
#define CORPROF_E_CLASSID_IS_ARRAY ((HRESULT)0x80131365u)
#define CORPROF_E_CLASSID_IS_COMPOSITE ((HRESULT)0x80131366u)
#define CORPROF_E_PROFILER_DETACHING ((HRESULT)0x80131367u)
#define CORPROF_E_PROFILER_NOT_ATTACHABLE ((HRESULT)0x80131368u)
#define CORPROF_E_UNRECOGNIZED_PIPE_MSG_FORMAT ((HRESULT)0x80131369u)
#define CORPROF_E_PROFILER_ALREADY_ACTIVE ((HRESULT)0x8013136Au)
#define CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER ((HRESULT)0x8013136Bu)
#define CORPROF_E_IPC_FAILED ((HRESULT)0x8013136Cu)
#define CORPROF_E_PROFILEE_PROCESS_NOT_FOUND ((HRESULT)0x8013136Du)
#define CORPROF_E_CALLBACK3_REQUIRED ((HRESULT)0x8013136Eu)
#define CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER ((HRESULT)0x8013136Fu)
#define CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT ((HRESULT)0x80131370u)
#define CORPROF_E_RUNTIME_UNINITIALIZED ((HRESULT)0x80131371u)
#define CORPROF_E_IMMUTABLE_FLAGS_SET ((HRESULT)0x80131372u)
#define CORPROF_E_PROFILER_NOT_YET_INITIALIZED ((HRESULT)0x80131373u)
#define CORPROF_E_INCONSISTENT_WITH_FLAGS ((HRESULT)0x80131374u)
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION ((HRESULT)0x80131375u)
#define CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE ((HRESULT)0x80131376u)
#define CORPROF_E_DEBUGGING_DISABLED ((HRESULT)0x80131378u)
#define CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC ((HRESULT)0x80131379u)
#define CORPROF_E_MODULE_IS_DYNAMIC ((HRESULT)0x8013137Au)
#define CORPROF_E_CALLBACK4_REQUIRED ((HRESULT)0x8013137Bu)
#define CORPROF_E_REJIT_NOT_ENABLED ((HRESULT)0x8013137Cu)
#define CORPROF_E_FUNCTION_IS_COLLECTIBLE ((HRESULT)0x8013137Eu)
#define CORPROF_E_CALLBACK6_REQUIRED ((HRESULT)0x80131380u)
#define CORPROF_E_CALLBACK7_REQUIRED ((HRESULT)0x80131382u)
#define CORPROF_E_REJIT_INLINING_DISABLED ((HRESULT)0x80131383u)
#define CORDIAGIPC_E_BAD_ENCODING ((HRESULT)0x80131384u)
#define CORDIAGIPC_E_UNKNOWN_COMMAND ((HRESULT)0x80131385u)
#define CORDIAGIPC_E_UNKNOWN_MAGIC ((HRESULT)0x80131386u)
#define CORDIAGIPC_E_UNKNOWN_ERROR ((HRESULT)0x80131387u)
#define CORPROF_E_SUSPENSION_IN_PROGRESS ((HRESULT)0x80131388u)
#define CORPROF_E_NOT_GC_OBJECT ((HRESULT)0x80131389u) /* corerror.h; .NET 8+ non-GC heap */
/* Metadata: IMetaDataImport::GetNestedClassProps returns this for a type that
 * is not nested (observed on .NET 10). */
#define CLDB_E_RECORD_NOTFOUND ((HRESULT)0x80131130u)

/* ------------------------------------------------------------------------ */
/* Enumerations.  Types that cross the ABI are fixed 32-bit integers, so    */
/* their size never depends on compiler enum rules; the values are macros   */
/* (flag sets) or anonymous enum constants (small closed sets).             */
/* ------------------------------------------------------------------------ */

/* COR_PRF_MONITOR: SetEventMask / SetEventMask2 low word. */
typedef uint32_t COR_PRF_MONITOR;
#define COR_PRF_MONITOR_NONE UINT32_C(0x00000000)
#define COR_PRF_MONITOR_FUNCTION_UNLOADS UINT32_C(0x00000001)
#define COR_PRF_MONITOR_CLASS_LOADS UINT32_C(0x00000002)
#define COR_PRF_MONITOR_MODULE_LOADS UINT32_C(0x00000004)
#define COR_PRF_MONITOR_ASSEMBLY_LOADS UINT32_C(0x00000008)
#define COR_PRF_MONITOR_APPDOMAIN_LOADS UINT32_C(0x00000010)
#define COR_PRF_MONITOR_JIT_COMPILATION UINT32_C(0x00000020)
#define COR_PRF_MONITOR_EXCEPTIONS UINT32_C(0x00000040)
#define COR_PRF_MONITOR_GC UINT32_C(0x00000080)
#define COR_PRF_MONITOR_OBJECT_ALLOCATED UINT32_C(0x00000100)
#define COR_PRF_MONITOR_THREADS UINT32_C(0x00000200)
#define COR_PRF_MONITOR_REMOTING UINT32_C(0x00000400)
#define COR_PRF_MONITOR_CODE_TRANSITIONS UINT32_C(0x00000800)
#define COR_PRF_MONITOR_ENTERLEAVE UINT32_C(0x00001000)
#define COR_PRF_MONITOR_CCW UINT32_C(0x00002000)
#define COR_PRF_MONITOR_REMOTING_COOKIE (UINT32_C(0x00004000) | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_REMOTING_ASYNC (UINT32_C(0x00008000) | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_SUSPENDS UINT32_C(0x00010000)
#define COR_PRF_MONITOR_CACHE_SEARCHES UINT32_C(0x00020000)
#define COR_PRF_ENABLE_REJIT UINT32_C(0x00040000)
#define COR_PRF_ENABLE_INPROC_DEBUGGING UINT32_C(0x00080000)
#define COR_PRF_ENABLE_JIT_MAPS UINT32_C(0x00100000)
#define COR_PRF_DISABLE_INLINING UINT32_C(0x00200000)
#define COR_PRF_DISABLE_OPTIMIZATIONS UINT32_C(0x00400000)
#define COR_PRF_ENABLE_OBJECT_ALLOCATED UINT32_C(0x00800000)
#define COR_PRF_MONITOR_CLR_EXCEPTIONS UINT32_C(0x01000000)
#define COR_PRF_MONITOR_ALL UINT32_C(0x0107FFFF)
#define COR_PRF_ENABLE_FUNCTION_ARGS UINT32_C(0x02000000)
#define COR_PRF_ENABLE_FUNCTION_RETVAL UINT32_C(0x04000000)
#define COR_PRF_ENABLE_FRAME_INFO UINT32_C(0x08000000)
#define COR_PRF_ENABLE_STACK_SNAPSHOT UINT32_C(0x10000000)
#define COR_PRF_USE_PROFILE_IMAGES UINT32_C(0x20000000)
#define COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST UINT32_C(0x40000000)
#define COR_PRF_DISABLE_ALL_NGEN_IMAGES UINT32_C(0x80000000)
#define COR_PRF_ALL UINT32_C(0x8FFFFFFF)
#define COR_PRF_REQUIRE_PROFILE_IMAGE \
	(COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_ENTERLEAVE)
/* As in the current corprof.idl.  CAUTION: older runtimes (the prebuilt
 * corprof.h of the .NET 5 era) did not allow DISABLE_INLINING and
 * DISABLE_OPTIMIZATIONS after attach and listed them as immutable instead;
 * see CORPROF_LEGACY_* below. */
#define COR_PRF_ALLOWABLE_AFTER_ATTACH                                                                   \
	(COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |       \
	 COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC |          \
	 COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_EXCEPTIONS |           \
	 COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |    \
	 COR_PRF_ENABLE_REJIT)
#define COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER                                                          \
	(COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_MODULE_LOADS | \
	 COR_PRF_MONITOR_ASSEMBLY_LOADS | COR_PRF_MONITOR_APPDOMAIN_LOADS |                              \
	 COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_EXCEPTIONS |                                  \
	 COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_CODE_TRANSITIONS | \
	 COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CACHE_SEARCHES |               \
	 COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS | COR_PRF_ENABLE_OBJECT_ALLOCATED |    \
	 COR_PRF_MONITOR_CLR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_USE_PROFILE_IMAGES |   \
	 COR_PRF_DISABLE_ALL_NGEN_IMAGES)
/* Flags that may only be set from Initialize (startup load). */
#define COR_PRF_MONITOR_IMMUTABLE                                                                        \
	(COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING | COR_PRF_MONITOR_REMOTING_COOKIE | \
	 COR_PRF_MONITOR_REMOTING_ASYNC | COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS |    \
	 COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_FUNCTION_ARGS | COR_PRF_ENABLE_FUNCTION_RETVAL | \
	 COR_PRF_ENABLE_FRAME_INFO | COR_PRF_USE_PROFILE_IMAGES |                                        \
	 COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST | COR_PRF_DISABLE_ALL_NGEN_IMAGES)
/* The older runtimes' sets (prebuilt corprof.h, commit f72a1f67a0a3..).  Use
 * these when you must be safe on every runtime. */
#define CORPROF_LEGACY_MONITOR_IMMUTABLE \
	(COR_PRF_MONITOR_IMMUTABLE | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS)
#define CORPROF_LEGACY_ALLOWABLE_AFTER_ATTACH \
	(COR_PRF_ALLOWABLE_AFTER_ATTACH & ~(COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS))

/* COR_PRF_HIGH_MONITOR: SetEventMask2 high word. */
typedef uint32_t COR_PRF_HIGH_MONITOR;
#define COR_PRF_HIGH_MONITOR_NONE UINT32_C(0x00000000)
#define COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES UINT32_C(0x00000001) /* not checked by CoreCLR */
#define COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED UINT32_C(0x00000002)
#define COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS UINT32_C(0x00000004)
#define COR_PRF_HIGH_DISABLE_TIERED_COMPILATION UINT32_C(0x00000008)
#define COR_PRF_HIGH_BASIC_GC UINT32_C(0x00000010)
#define COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS UINT32_C(0x00000020)
#define COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE UINT32_C(0x00000000)
#define COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED UINT32_C(0x00000040)
#define COR_PRF_HIGH_MONITOR_EVENT_PIPE UINT32_C(0x00000080)
#define COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED UINT32_C(0x00000100)
#define COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH                                                         \
	(COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |   \
	 COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS |                            \
	 COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER                                                \
	(COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |   \
	 COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC |                          \
	 COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |       \
	 COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_MONITOR_IMMUTABLE COR_PRF_HIGH_DISABLE_TIERED_COMPILATION

/* COR_PRF_MISC: special IDs.  CoreCLR on Linux is built by clang, where these
 * enumerators are unsigned int: compare with the zero-extended values. */
#define PROFILER_PARENT_UNKNOWN ((UINT_PTR)UINT32_C(0xFFFFFFFD))
#define PROFILER_GLOBAL_CLASS ((UINT_PTR)UINT32_C(0xFFFFFFFE))
#define PROFILER_GLOBAL_MODULE ((UINT_PTR)UINT32_C(0xFFFFFFFF))

/* COR_PRF_SNAPSHOT_INFO: DoStackSnapshot infoFlags. */
typedef uint32_t COR_PRF_SNAPSHOT_INFO;
#define COR_PRF_SNAPSHOT_DEFAULT UINT32_C(0x0)
#define COR_PRF_SNAPSHOT_REGISTER_CONTEXT UINT32_C(0x1)
#define COR_PRF_SNAPSHOT_X86_OPTIMIZED UINT32_C(0x2) /* x86 only */

typedef int32_t COR_PRF_JIT_CACHE;
enum { COR_PRF_CACHED_FUNCTION_FOUND = 0, COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1 };

typedef int32_t COR_PRF_TRANSITION_REASON;
enum { COR_PRF_TRANSITION_CALL = 0, COR_PRF_TRANSITION_RETURN = 1 };

typedef int32_t COR_PRF_SUSPEND_REASON;
enum {
	COR_PRF_SUSPEND_OTHER = 0,
	COR_PRF_SUSPEND_FOR_GC = 1,
	COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
	COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
	COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
	COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
	COR_PRF_SUSPEND_FOR_GC_PREP = 7,
	COR_PRF_SUSPEND_FOR_REJIT = 8,
	COR_PRF_SUSPEND_FOR_PROFILER = 9
};

typedef int32_t COR_PRF_RUNTIME_TYPE;
enum { COR_PRF_DESKTOP_CLR = 0x1, COR_PRF_CORE_CLR = 0x2 };

typedef uint32_t COR_PRF_REJIT_FLAGS;
#define COR_PRF_REJIT_BLOCK_INLINING UINT32_C(0x1)
#define COR_PRF_REJIT_INLINING_CALLBACKS UINT32_C(0x2)

typedef uint32_t COR_PRF_CODEGEN_FLAGS;
#define COR_PRF_CODEGEN_DISABLE_INLINING UINT32_C(0x0001)
#define COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS UINT32_C(0x0002)
#define COR_PRF_CODEGEN_DEBUG_INFO UINT32_C(0x0003)

typedef int32_t COR_PRF_STATIC_TYPE;
enum {
	COR_PRF_FIELD_NOT_A_STATIC = 0x0,
	COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
	COR_PRF_FIELD_THREAD_STATIC = 0x2,
	COR_PRF_FIELD_CONTEXT_STATIC = 0x4,
	COR_PRF_FIELD_RVA_STATIC = 0x8
};

typedef int32_t COR_PRF_GC_ROOT_KIND;
enum {
	COR_PRF_GC_ROOT_OTHER = 0,
	COR_PRF_GC_ROOT_STACK = 1,
	COR_PRF_GC_ROOT_FINALIZER = 2,
	COR_PRF_GC_ROOT_HANDLE = 3
};

typedef int32_t COR_PRF_GC_ROOT_FLAGS;
enum {
	COR_PRF_GC_ROOT_PINNING = 0x1,
	COR_PRF_GC_ROOT_WEAKREF = 0x2,
	COR_PRF_GC_ROOT_INTERIOR = 0x4,
	COR_PRF_GC_ROOT_REFCOUNTED = 0x8
};

typedef int32_t COR_PRF_FINALIZER_FLAGS;
enum { COR_PRF_FINALIZER_CRITICAL = 0x1 };

typedef int32_t COR_PRF_GC_GENERATION;
enum {
	COR_PRF_GC_GEN_0 = 0,
	COR_PRF_GC_GEN_1 = 1,
	COR_PRF_GC_GEN_2 = 2,
	COR_PRF_GC_LARGE_OBJECT_HEAP = 3,
	COR_PRF_GC_PINNED_OBJECT_HEAP = 4
};

typedef int32_t COR_PRF_GC_REASON;
enum { COR_PRF_GC_OTHER = 0, COR_PRF_GC_INDUCED = 1 };

typedef int32_t COR_PRF_CLAUSE_TYPE;
enum {
	COR_PRF_CLAUSE_NONE = 0,
	COR_PRF_CLAUSE_FILTER = 1,
	COR_PRF_CLAUSE_CATCH = 2,
	COR_PRF_CLAUSE_FINALLY = 3
};

typedef uint32_t COR_PRF_MODULE_FLAGS; /* GetModuleInfo2 *pdwModuleFlags */
#define COR_PRF_MODULE_DISK UINT32_C(0x00000001)
#define COR_PRF_MODULE_NGEN UINT32_C(0x00000002)
#define COR_PRF_MODULE_DYNAMIC UINT32_C(0x00000004)
#define COR_PRF_MODULE_COLLECTIBLE UINT32_C(0x00000008)
#define COR_PRF_MODULE_RESOURCE UINT32_C(0x00000010)
#define COR_PRF_MODULE_FLAT_LAYOUT UINT32_C(0x00000020)
#define COR_PRF_MODULE_WINDOWS_RUNTIME UINT32_C(0x00000040)

typedef int32_t COR_PRF_HANDLE_TYPE;
enum { COR_PRF_HANDLE_TYPE_WEAK = 0x1, COR_PRF_HANDLE_TYPE_STRONG = 0x2, COR_PRF_HANDLE_TYPE_PINNED = 0x3 };

typedef int32_t COR_PRF_EVENTPIPE_PARAM_TYPE;
enum {
	COR_PRF_EVENTPIPE_OBJECT = 1,
	COR_PRF_EVENTPIPE_BOOLEAN = 3,
	COR_PRF_EVENTPIPE_CHAR = 4,
	COR_PRF_EVENTPIPE_SBYTE = 5,
	COR_PRF_EVENTPIPE_BYTE = 6,
	COR_PRF_EVENTPIPE_INT16 = 7,
	COR_PRF_EVENTPIPE_UINT16 = 8,
	COR_PRF_EVENTPIPE_INT32 = 9,
	COR_PRF_EVENTPIPE_UINT32 = 10,
	COR_PRF_EVENTPIPE_INT64 = 11,
	COR_PRF_EVENTPIPE_UINT64 = 12,
	COR_PRF_EVENTPIPE_SINGLE = 13,
	COR_PRF_EVENTPIPE_DOUBLE = 14,
	COR_PRF_EVENTPIPE_DECIMAL = 15,
	COR_PRF_EVENTPIPE_DATETIME = 16,
	COR_PRF_EVENTPIPE_GUID = 17,
	COR_PRF_EVENTPIPE_STRING = 18,
	COR_PRF_EVENTPIPE_ARRAY = 19
};

typedef int32_t COR_PRF_EVENTPIPE_LEVEL;
enum {
	COR_PRF_EVENTPIPE_LOGALWAYS = 0,
	COR_PRF_EVENTPIPE_CRITICAL = 1,
	COR_PRF_EVENTPIPE_ERROR = 2,
	COR_PRF_EVENTPIPE_WARNING = 3,
	COR_PRF_EVENTPIPE_INFORMATIONAL = 4,
	COR_PRF_EVENTPIPE_VERBOSE = 5
};

/* CorDebugIlToNativeMappingTypes: special ilOffset values. */
#define NO_MAPPING ((ULONG32)-1)
#define PROLOG ((ULONG32)-2)
#define EPILOG ((ULONG32)-3)

/* ------------------------------------------------------------------------ */
/* Structures                                                               */
/* ------------------------------------------------------------------------ */

typedef union FunctionIDOrClientID {
	FunctionID functionID;
	UINT_PTR clientID;
} FunctionIDOrClientID;

typedef struct COR_IL_MAP {
	ULONG32 oldOffset;
	ULONG32 newOffset;
	BOOL fAccurate;
} COR_IL_MAP;

typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
	ULONG32 ilOffset;
	ULONG32 nativeStartOffset;
	ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

typedef struct COR_FIELD_OFFSET {
	mdFieldDef ridOfField;
	ULONG ulOffset;
} COR_FIELD_OFFSET;

typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
	UINT_PTR startAddress;
	ULONG length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

/* Variable length: numRanges entries follow; size it with GetFunctionEnter3Info. */
typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
	ULONG numRanges;
	ULONG totalArgumentSize;
	COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
} COR_PRF_FUNCTION_ARGUMENT_INFO;

typedef struct COR_PRF_CODE_INFO {
	UINT_PTR startAddress;
	SIZE_T size;
} COR_PRF_CODE_INFO;

typedef struct COR_PRF_FUNCTION {
	FunctionID functionId;
	ReJITID reJitId;
} COR_PRF_FUNCTION;

typedef struct COR_PRF_METHOD {
	ModuleID moduleId;
	mdMethodDef methodId;
} COR_PRF_METHOD;

typedef struct COR_PRF_GC_GENERATION_RANGE {
	COR_PRF_GC_GENERATION generation;
	ObjectID rangeStart;
	UINT_PTR rangeLength;
	UINT_PTR rangeLengthReserved;
} COR_PRF_GC_GENERATION_RANGE;

typedef struct COR_PRF_NONGC_HEAP_RANGE {
	ObjectID rangeStart;
	UINT_PTR rangeLength;
	UINT_PTR rangeLengthReserved;
} COR_PRF_NONGC_HEAP_RANGE;

typedef struct COR_PRF_EX_CLAUSE_INFO {
	COR_PRF_CLAUSE_TYPE clauseType;
	UINT_PTR programCounter;
	UINT_PTR framePointer;
	UINT_PTR shadowStackPointer;
} COR_PRF_EX_CLAUSE_INFO;

typedef struct OSINFO {
	DWORD dwOSPlatformId;
	DWORD dwOSMajorVersion;
	DWORD dwOSMinorVersion;
} OSINFO;

typedef struct ASSEMBLYMETADATA {
	USHORT usMajorVersion;
	USHORT usMinorVersion;
	USHORT usBuildNumber;
	USHORT usRevisionNumber;
	LPWSTR szLocale;
	ULONG cbLocale;
	DWORD *rProcessor;
	ULONG ulProcessor;
	OSINFO *rOS;
	ULONG ulOS;
} ASSEMBLYMETADATA;

typedef struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
	void *pbPublicKeyOrToken;
	ULONG cbPublicKeyOrToken;
	LPCWSTR szName;
	ASSEMBLYMETADATA *pMetaData;
	void *pbHashValue;
	ULONG cbHashValue;
	DWORD dwAssemblyRefFlags;
} COR_PRF_ASSEMBLY_REFERENCE_INFO;

typedef struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
	const WCHAR *providerName;
	UINT64 keywords;
	UINT32 loggingLevel;
	const WCHAR *filterData; /* "key1=value1;key2=value2;" */
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;

typedef struct COR_PRF_EVENTPIPE_PARAM_DESC {
	UINT32 type;
	UINT32 elementType; /* when type == COR_PRF_EVENTPIPE_ARRAY */
	const WCHAR *name;
} COR_PRF_EVENTPIPE_PARAM_DESC;

typedef struct COR_PRF_EVENT_DATA {
	UINT64 ptr;
	UINT32 size;
	UINT32 reserved;
} COR_PRF_EVENT_DATA;

typedef struct COR_PRF_FILTER_DATA {
	UINT64 Ptr;
	UINT32 Size;
	UINT32 Type;
} COR_PRF_FILTER_DATA;

_Static_assert(sizeof(FunctionIDOrClientID) == 8, "FunctionIDOrClientID layout");
_Static_assert(sizeof(COR_IL_MAP) == 12, "COR_IL_MAP layout");
_Static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP layout");
_Static_assert(sizeof(COR_FIELD_OFFSET) == 8, "COR_FIELD_OFFSET layout");
_Static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE) == 16, "COR_PRF_FUNCTION_ARGUMENT_RANGE layout");
_Static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_INFO) == 24 &&
		       offsetof(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges) == 8,
	       "COR_PRF_FUNCTION_ARGUMENT_INFO layout");
_Static_assert(sizeof(COR_PRF_CODE_INFO) == 16, "COR_PRF_CODE_INFO layout");
_Static_assert(sizeof(COR_PRF_FUNCTION) == 16, "COR_PRF_FUNCTION layout");
_Static_assert(sizeof(COR_PRF_METHOD) == 16, "COR_PRF_METHOD layout");
_Static_assert(sizeof(COR_PRF_GC_GENERATION_RANGE) == 32 &&
		       offsetof(COR_PRF_GC_GENERATION_RANGE, rangeStart) == 8,
	       "COR_PRF_GC_GENERATION_RANGE layout");
_Static_assert(sizeof(COR_PRF_NONGC_HEAP_RANGE) == 24, "COR_PRF_NONGC_HEAP_RANGE layout");
_Static_assert(sizeof(COR_PRF_EX_CLAUSE_INFO) == 32, "COR_PRF_EX_CLAUSE_INFO layout");
_Static_assert(sizeof(COR_PRF_ASSEMBLY_REFERENCE_INFO) == 48, "COR_PRF_ASSEMBLY_REFERENCE_INFO layout");
_Static_assert(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG) == 32, "COR_PRF_EVENTPIPE_PROVIDER_CONFIG layout");
_Static_assert(sizeof(COR_PRF_EVENTPIPE_PARAM_DESC) == 16, "COR_PRF_EVENTPIPE_PARAM_DESC layout");
_Static_assert(sizeof(COR_PRF_EVENT_DATA) == 16, "COR_PRF_EVENT_DATA layout");
_Static_assert(sizeof(COR_PRF_FILTER_DATA) == 16, "COR_PRF_FILTER_DATA layout");

/* ------------------------------------------------------------------------ */
/* Hook and callback function types (function types, as in corprof.idl:    */
/* parameters take a pointer to them, e.g. FunctionEnter3WithInfo *).      */
/* ------------------------------------------------------------------------ */

/* SetFunctionIDMapper(2): return the value handed to the ELT hooks as
 * FunctionIDOrClientID (never 0 while *pbHookFunction is TRUE). */
typedef UINT_PTR FunctionIDMapper(FunctionID funcId, BOOL *pbHookFunction);
typedef UINT_PTR FunctionIDMapper2(FunctionID funcId, void *clientData, BOOL *pbHookFunction);

/* V1/V2 and plain V3 hooks are called straight from JIT'd code without any
 * register saving: they must be written in assembly.  Declared for slot
 * typing only. */
typedef void FunctionEnter(FunctionID funcID);
typedef void FunctionLeave(FunctionID funcID);
typedef void FunctionTailcall(FunctionID funcID);
typedef void FunctionEnter2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
			    COR_PRF_FUNCTION_ARGUMENT_INFO *argumentInfo);
typedef void FunctionLeave2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
			    COR_PRF_FUNCTION_ARGUMENT_RANGE *retvalRange);
typedef void FunctionTailcall2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func);
typedef void FunctionEnter3(FunctionIDOrClientID functionIDOrClientID);
typedef void FunctionLeave3(FunctionIDOrClientID functionIDOrClientID);
typedef void FunctionTailcall3(FunctionIDOrClientID functionIDOrClientID);

/* The "slow path" hooks (SetEnterLeaveFunctionHooks3WithInfo together with
 * COR_PRF_ENABLE_FUNCTION_ARGS / _RETVAL / _FRAME_INFO): plain C functions. */
typedef void FunctionEnter3WithInfo(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
typedef void FunctionLeave3WithInfo(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
typedef void FunctionTailcall3WithInfo(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);

/* DoStackSnapshot: once per managed frame (funcId != 0) or run of native
 * frames (funcId == 0).  Return S_OK to go on, an error to stop the walk. */
typedef HRESULT StackSnapshotCallback(FunctionID funcId, UINT_PTR ip, COR_PRF_FRAME_INFO frameInfo,
				      ULONG32 contextSize, BYTE context[], void *clientData);

/* ICorProfilerInfo10::EnumerateObjectReferences: return TRUE to continue. */
typedef BOOL ObjectReferenceCallback(ObjectID root, ObjectID *reference, void *clientData);

/* ICorProfilerInfo15::EnumerateGCHeapObjects (a pointer type in the IDL). */
typedef BOOL (*ObjectCallback)(ObjectID object, void *callbackState);

/* ICorProfilerInfo14::EventPipeCreateProvider2. */
typedef void EventPipeProviderCallback(const UINT8 *source_id, UINT32 is_enabled, UINT8 level,
				       UINT64 match_any_keywords, UINT64 match_all_keywords,
				       COR_PRF_FILTER_DATA *filter_data, void *callback_data);

/* ------------------------------------------------------------------------ */
/* Interface identifiers                                                    */
/* ------------------------------------------------------------------------ */

#ifdef CORPROF_DEFINE_GUIDS
#define CORPROF_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
	extern const GUID name;                                        \
	const GUID name = { l, w1, w2, { b1, b2, b3, b4, b5, b6, b7, b8 } }
#else
#define CORPROF_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) extern const GUID name
#endif

/* {00000000-0000-0000-C000-000000000046} */
CORPROF_GUID(IID_IUnknown, 0x00000000, 0x0000, 0x0000, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46);
/* {00000001-0000-0000-C000-000000000046} */
CORPROF_GUID(IID_IClassFactory, 0x00000001, 0x0000, 0x0000, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46);

CORPROF_GUID(IID_ICorProfilerCallback, 0x176FBED1, 0xA55C, 0x4796, 0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7);
CORPROF_GUID(IID_ICorProfilerCallback2, 0x8A8CC829, 0xCCF2, 0x49FE, 0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A);
CORPROF_GUID(IID_ICorProfilerCallback3, 0x4FD2ED52, 0x7731, 0x4B8D, 0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5);
CORPROF_GUID(IID_ICorProfilerCallback4, 0x7B63B2E3, 0x107D, 0x4D48, 0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2);
CORPROF_GUID(IID_ICorProfilerCallback5, 0x8DFBA405, 0x8C9F, 0x45F8, 0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5);
CORPROF_GUID(IID_ICorProfilerCallback6, 0xFC13DF4B, 0x4448, 0x4F4F, 0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36);
CORPROF_GUID(IID_ICorProfilerCallback7, 0xF76A2DBA, 0x1D52, 0x4539, 0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3);
CORPROF_GUID(IID_ICorProfilerCallback8, 0x5BED9B15, 0xC079, 0x4D47, 0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0);
CORPROF_GUID(IID_ICorProfilerCallback9, 0x27583EC3, 0xC8F5, 0x482F, 0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A);
CORPROF_GUID(IID_ICorProfilerCallback10, 0xCEC5B60E, 0xC69C, 0x495F, 0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB);
CORPROF_GUID(IID_ICorProfilerCallback11, 0x42350846, 0xAAED, 0x47F7, 0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE);

CORPROF_GUID(IID_ICorProfilerInfo, 0x28B5557D, 0x3F3F, 0x48B4, 0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48);
CORPROF_GUID(IID_ICorProfilerInfo2, 0xCC0935CD, 0xA518, 0x487D, 0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78);
CORPROF_GUID(IID_ICorProfilerInfo3, 0xB555ED4F, 0x452A, 0x4E54, 0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0);
CORPROF_GUID(IID_ICorProfilerInfo4, 0x0D8FDCAA, 0x6257, 0x47BF, 0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE);
CORPROF_GUID(IID_ICorProfilerInfo5, 0x07602928, 0xCE38, 0x4B83, 0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14);
CORPROF_GUID(IID_ICorProfilerInfo6, 0xF30A070D, 0xBFFB, 0x46A7, 0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A);
CORPROF_GUID(IID_ICorProfilerInfo7, 0x9AEECC0D, 0x63E0, 0x4187, 0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63);
CORPROF_GUID(IID_ICorProfilerInfo8, 0xC5AC80A6, 0x782E, 0x4716, 0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF);
CORPROF_GUID(IID_ICorProfilerInfo9, 0x008170DB, 0xF8CC, 0x4796, 0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12);
CORPROF_GUID(IID_ICorProfilerInfo10, 0x2F1B5152, 0xC869, 0x40C9, 0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20);
CORPROF_GUID(IID_ICorProfilerInfo11, 0x06398876, 0x8987, 0x4154, 0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04);
CORPROF_GUID(IID_ICorProfilerInfo12, 0x27B24CCD, 0x1CB1, 0x47C5, 0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59);
CORPROF_GUID(IID_ICorProfilerInfo13, 0x6E6C7EE2, 0x0701, 0x4EC2, 0x9D, 0x29, 0x2E, 0x87, 0x33, 0xB6, 0x69, 0x34);
CORPROF_GUID(IID_ICorProfilerInfo14, 0xF460E352, 0xD76D, 0x4FE9, 0x83, 0x5F, 0xF6, 0xAF, 0x9D, 0x6E, 0x86, 0x2D);
/* {B446462D-BD22-41DD-872D-DC714C49EB56}: from uuid() in corprof.idl */
CORPROF_GUID(IID_ICorProfilerInfo15, 0xB446462D, 0xBD22, 0x41DD, 0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56);

CORPROF_GUID(IID_ICorProfilerObjectEnum, 0x2C6269BD, 0x2D13, 0x4321, 0xAE, 0x12, 0x66, 0x86, 0x36, 0x5F, 0xD6, 0xAF);
CORPROF_GUID(IID_ICorProfilerFunctionEnum, 0xFF71301A, 0xB994, 0x429D, 0xA1, 0x0B, 0xB3, 0x45, 0xA6, 0x52, 0x80, 0xEF);
CORPROF_GUID(IID_ICorProfilerModuleEnum, 0xB0266D75, 0x2081, 0x4493, 0xAF, 0x7F, 0x02, 0x8B, 0xA3, 0x4D, 0xB8, 0x91);
CORPROF_GUID(IID_ICorProfilerThreadEnum, 0x571194F7, 0x25ED, 0x419F, 0xAA, 0x8B, 0x70, 0x16, 0xB3, 0x15, 0x97, 0x01);
CORPROF_GUID(IID_ICorProfilerMethodEnum, 0xFCCEE788, 0x0088, 0x454B, 0xA8, 0x11, 0xC9, 0x9F, 0x29, 0x8D, 0x19, 0x42);
CORPROF_GUID(IID_IMethodMalloc, 0xA0EFB28B, 0x6EE2, 0x4D7B, 0xB9, 0x83, 0xA7, 0x5E, 0xF7, 0xBE, 0xED, 0xB8);
CORPROF_GUID(IID_ICorProfilerFunctionControl, 0xF0963021, 0xE1EA, 0x4732, 0x85, 0x81, 0xE0, 0x1B, 0x0B, 0xD3, 0xC0, 0xC6);
CORPROF_GUID(IID_ICorProfilerAssemblyReferenceProvider, 0x66A78C24, 0x2EEF, 0x4F65, 0xB4, 0x5F, 0xDD, 0x1D, 0x80, 0x38,
	     0xBF, 0x3C);

/* cor.h: {7DAC8207-D3AE-4C75-9B67-92801A497D44}, {FCE5EFA0-8BBA-4F8E-A036-8F2022B08466} */
CORPROF_GUID(IID_IMetaDataImport, 0x7DAC8207, 0xD3AE, 0x4C75, 0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44);
CORPROF_GUID(IID_IMetaDataImport2, 0xFCE5EFA0, 0x8BBA, 0x4F8E, 0xA0, 0x36, 0x8F, 0x20, 0x22, 0xB0, 0x84, 0x66);

#define CORPROF_CALLBACK_LAST_IID IID_ICorProfilerCallback11
#define CORPROF_INFO_LAST_IID IID_ICorProfilerInfo15

static inline int corprof_guid_equal(const GUID *a, const GUID *b)
{
	if (a->Data1 != b->Data1 || a->Data2 != b->Data2 || a->Data3 != b->Data3)
		return 0;
	for (int i = 0; i < 8; i++)
		if (a->Data4[i] != b->Data4[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* Interfaces: struct X { const struct XVtbl *vtbl; }                        */
/* ------------------------------------------------------------------------ */

#define CORPROF_DECLARE_SLOT(ret, name, params) ret(*name) params;

typedef struct IUnknown IUnknown;
typedef struct IClassFactory IClassFactory;
typedef struct ICorProfilerCallback11 ICorProfilerCallback11;
typedef struct ICorProfilerInfo15 ICorProfilerInfo15;
typedef struct ICorProfilerObjectEnum ICorProfilerObjectEnum;
typedef struct ICorProfilerFunctionEnum ICorProfilerFunctionEnum;
typedef struct ICorProfilerModuleEnum ICorProfilerModuleEnum;
typedef struct ICorProfilerThreadEnum ICorProfilerThreadEnum;
typedef struct ICorProfilerMethodEnum ICorProfilerMethodEnum;
typedef struct IMethodMalloc IMethodMalloc;
typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;
typedef struct ICorProfilerAssemblyReferenceProvider ICorProfilerAssemblyReferenceProvider;
typedef struct IMetaDataImport IMetaDataImport;

/* --- IUnknown (3 slots) ------------------------------------------------- */

struct IUnknownVtbl {
	HRESULT (*QueryInterface)(IUnknown *self, REFIID riid, void **ppvObject);
	ULONG (*AddRef)(IUnknown *self);
	ULONG (*Release)(IUnknown *self);
};
struct IUnknown {
	const struct IUnknownVtbl *vtbl;
};
_Static_assert(sizeof(struct IUnknownVtbl) == 3 * sizeof(void *), "IUnknown: 3 slots");

/* --- IClassFactory (5 slots) -------------------------------------------- */

struct IClassFactoryVtbl {
	HRESULT (*QueryInterface)(IClassFactory *self, REFIID riid, void **ppvObject);
	ULONG (*AddRef)(IClassFactory *self);
	ULONG (*Release)(IClassFactory *self);
	HRESULT (*CreateInstance)(IClassFactory *self, IUnknown *pUnkOuter, REFIID riid, void **ppvObject);
	HRESULT (*LockServer)(IClassFactory *self, BOOL fLock);
};
struct IClassFactory {
	const struct IClassFactoryVtbl *vtbl;
};
_Static_assert(sizeof(struct IClassFactoryVtbl) == 5 * sizeof(void *), "IClassFactory: 5 slots");

/* --- Enumerators (8 slots each: IUnknown + Skip, Reset, Clone, GetCount, Next) */

#define CORPROF_DECLARE_ENUM(Iface, Elem)                                                   \
	struct Iface##Vtbl {                                                                \
		HRESULT (*QueryInterface)(Iface * self, REFIID riid, void **ppvObject);     \
		ULONG (*AddRef)(Iface * self);                                              \
		ULONG (*Release)(Iface * self);                                             \
		HRESULT (*Skip)(Iface * self, ULONG celt);                                  \
		HRESULT (*Reset)(Iface * self);                                             \
		HRESULT (*Clone)(Iface * self, Iface * *ppEnum);                            \
		HRESULT (*GetCount)(Iface * self, ULONG * pcelt);                           \
		HRESULT (*Next)(Iface * self, ULONG celt, Elem * elements, ULONG * pceltFetched); \
	};                                                                                  \
	struct Iface {                                                                      \
		const struct Iface##Vtbl *vtbl;                                             \
	};                                                                                  \
	_Static_assert(sizeof(struct Iface##Vtbl) == 8 * sizeof(void *), #Iface ": 8 slots")

CORPROF_DECLARE_ENUM(ICorProfilerObjectEnum, ObjectID);
CORPROF_DECLARE_ENUM(ICorProfilerFunctionEnum, COR_PRF_FUNCTION);
CORPROF_DECLARE_ENUM(ICorProfilerModuleEnum, ModuleID);
CORPROF_DECLARE_ENUM(ICorProfilerThreadEnum, ThreadID);
CORPROF_DECLARE_ENUM(ICorProfilerMethodEnum, COR_PRF_METHOD);

/* --- IMethodMalloc (4 slots; deprecated) -------------------------------- */

struct IMethodMallocVtbl {
	HRESULT (*QueryInterface)(IMethodMalloc *self, REFIID riid, void **ppvObject);
	ULONG (*AddRef)(IMethodMalloc *self);
	ULONG (*Release)(IMethodMalloc *self);
	PVOID (*Alloc)(IMethodMalloc *self, ULONG cb);
};
struct IMethodMalloc {
	const struct IMethodMallocVtbl *vtbl;
};
_Static_assert(sizeof(struct IMethodMallocVtbl) == 4 * sizeof(void *), "IMethodMalloc: 4 slots");

/* --- ICorProfilerFunctionControl (6 slots; given to GetReJITParameters) -- */

struct ICorProfilerFunctionControlVtbl {
	HRESULT (*QueryInterface)(ICorProfilerFunctionControl *self, REFIID riid, void **ppvObject);
	ULONG (*AddRef)(ICorProfilerFunctionControl *self);
	ULONG (*Release)(ICorProfilerFunctionControl *self);
	HRESULT (*SetCodegenFlags)(ICorProfilerFunctionControl *self, DWORD flags);
	HRESULT (*SetILFunctionBody)(ICorProfilerFunctionControl *self, ULONG cbNewILMethodHeader,
				     LPCBYTE pbNewILMethodHeader);
	HRESULT (*SetILInstrumentedCodeMap)(ICorProfilerFunctionControl *self, ULONG cILMapEntries,
					    COR_IL_MAP *rgILMapEntries);
};
struct ICorProfilerFunctionControl {
	const struct ICorProfilerFunctionControlVtbl *vtbl;
};
_Static_assert(sizeof(struct ICorProfilerFunctionControlVtbl) == 6 * sizeof(void *),
	       "ICorProfilerFunctionControl: 6 slots");

/* --- ICorProfilerAssemblyReferenceProvider (4 slots) -------------------- */

struct ICorProfilerAssemblyReferenceProviderVtbl {
	HRESULT (*QueryInterface)(ICorProfilerAssemblyReferenceProvider *self, REFIID riid, void **ppvObject);
	ULONG (*AddRef)(ICorProfilerAssemblyReferenceProvider *self);
	ULONG (*Release)(ICorProfilerAssemblyReferenceProvider *self);
	HRESULT (*AddAssemblyReference)(ICorProfilerAssemblyReferenceProvider *self,
					const COR_PRF_ASSEMBLY_REFERENCE_INFO *pAssemblyRefInfo);
};
struct ICorProfilerAssemblyReferenceProvider {
	const struct ICorProfilerAssemblyReferenceProviderVtbl *vtbl;
};
_Static_assert(sizeof(struct ICorProfilerAssemblyReferenceProviderVtbl) == 4 * sizeof(void *),
	       "ICorProfilerAssemblyReferenceProvider: 4 slots");

/* ======================================================================== */
/* ICorProfilerCallback .. ICorProfilerCallback11 (implemented by us)       */
/* ======================================================================== */
/*
 * X-macros, in exact vtable order, one per interface version; each entry is
 * X(return type, method name, (parameter list including self)).
 * CORPROF_CALLBACK_METHODS(X) is the whole 98-slot vtable.
 *
 * Generating default stubs: the parameters are named, so wrap the generated
 * definitions to silence -Wunused-parameter, e.g.
 *
 *   #pragma GCC diagnostic push
 *   #pragma GCC diagnostic ignored "-Wunused-parameter"
 *   #define STUB(ret, name, params) static ret stub_##name params { return (ret)0; }
 *   CORPROF_CALLBACK_METHODS(STUB)   // then fix up QueryInterface/AddRef/Release
 *   #pragma GCC diagnostic pop
 *   #define FILL(ret, name, params) .name = stub_##name,
 *   static struct ICorProfilerCallback11Vtbl vt = { CORPROF_CALLBACK_METHODS(FILL) };
 *
 * (works with both gcc and clang.)
 */

#define CORPROF_CALLBACK_IUNKNOWN_METHODS(X)                                                   \
	X(HRESULT, QueryInterface, (ICorProfilerCallback11 * self, REFIID riid, void **ppvObject)) \
	X(ULONG, AddRef, (ICorProfilerCallback11 * self))                                      \
	X(ULONG, Release, (ICorProfilerCallback11 * self))

/* ICorProfilerCallback: slots 3..71 (69 methods) */
#define CORPROF_CALLBACK1_METHODS(X)                                                                       \
	X(HRESULT, Initialize, (ICorProfilerCallback11 * self, IUnknown * pICorProfilerInfoUnk))            \
	X(HRESULT, Shutdown, (ICorProfilerCallback11 * self))                                               \
	X(HRESULT, AppDomainCreationStarted, (ICorProfilerCallback11 * self, AppDomainID appDomainId))      \
	X(HRESULT, AppDomainCreationFinished,                                                               \
	  (ICorProfilerCallback11 * self, AppDomainID appDomainId, HRESULT hrStatus))                       \
	X(HRESULT, AppDomainShutdownStarted, (ICorProfilerCallback11 * self, AppDomainID appDomainId))      \
	X(HRESULT, AppDomainShutdownFinished,                                                               \
	  (ICorProfilerCallback11 * self, AppDomainID appDomainId, HRESULT hrStatus))                       \
	X(HRESULT, AssemblyLoadStarted, (ICorProfilerCallback11 * self, AssemblyID assemblyId))             \
	X(HRESULT, AssemblyLoadFinished, (ICorProfilerCallback11 * self, AssemblyID assemblyId, HRESULT hrStatus)) \
	X(HRESULT, AssemblyUnloadStarted, (ICorProfilerCallback11 * self, AssemblyID assemblyId))           \
	X(HRESULT, AssemblyUnloadFinished,                                                                  \
	  (ICorProfilerCallback11 * self, AssemblyID assemblyId, HRESULT hrStatus))                         \
	X(HRESULT, ModuleLoadStarted, (ICorProfilerCallback11 * self, ModuleID moduleId))                   \
	X(HRESULT, ModuleLoadFinished, (ICorProfilerCallback11 * self, ModuleID moduleId, HRESULT hrStatus)) \
	X(HRESULT, ModuleUnloadStarted, (ICorProfilerCallback11 * self, ModuleID moduleId))                 \
	X(HRESULT, ModuleUnloadFinished, (ICorProfilerCallback11 * self, ModuleID moduleId, HRESULT hrStatus)) \
	X(HRESULT, ModuleAttachedToAssembly,                                                                \
	  (ICorProfilerCallback11 * self, ModuleID moduleId, AssemblyID AssemblyId))                        \
	X(HRESULT, ClassLoadStarted, (ICorProfilerCallback11 * self, ClassID classId))                      \
	X(HRESULT, ClassLoadFinished, (ICorProfilerCallback11 * self, ClassID classId, HRESULT hrStatus))   \
	X(HRESULT, ClassUnloadStarted, (ICorProfilerCallback11 * self, ClassID classId))                    \
	X(HRESULT, ClassUnloadFinished, (ICorProfilerCallback11 * self, ClassID classId, HRESULT hrStatus)) \
	X(HRESULT, FunctionUnloadStarted, (ICorProfilerCallback11 * self, FunctionID functionId))           \
	X(HRESULT, JITCompilationStarted,                                                                   \
	  (ICorProfilerCallback11 * self, FunctionID functionId, BOOL fIsSafeToBlock))                      \
	X(HRESULT, JITCompilationFinished,                                                                  \
	  (ICorProfilerCallback11 * self, FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock))    \
	X(HRESULT, JITCachedFunctionSearchStarted,                                                          \
	  (ICorProfilerCallback11 * self, FunctionID functionId, BOOL * pbUseCachedFunction))               \
	X(HRESULT, JITCachedFunctionSearchFinished,                                                         \
	  (ICorProfilerCallback11 * self, FunctionID functionId, COR_PRF_JIT_CACHE result))                 \
	X(HRESULT, JITFunctionPitched, (ICorProfilerCallback11 * self, FunctionID functionId))              \
	X(HRESULT, JITInlining,                                                                             \
	  (ICorProfilerCallback11 * self, FunctionID callerId, FunctionID calleeId, BOOL * pfShouldInline)) \
	X(HRESULT, ThreadCreated, (ICorProfilerCallback11 * self, ThreadID threadId))                       \
	X(HRESULT, ThreadDestroyed, (ICorProfilerCallback11 * self, ThreadID threadId))                     \
	X(HRESULT, ThreadAssignedToOSThread,                                                                \
	  (ICorProfilerCallback11 * self, ThreadID managedThreadId, DWORD osThreadId))                      \
	X(HRESULT, RemotingClientInvocationStarted, (ICorProfilerCallback11 * self))                        \
	X(HRESULT, RemotingClientSendingMessage, (ICorProfilerCallback11 * self, GUID * pCookie, BOOL fIsAsync)) \
	X(HRESULT, RemotingClientReceivingReply, (ICorProfilerCallback11 * self, GUID * pCookie, BOOL fIsAsync)) \
	X(HRESULT, RemotingClientInvocationFinished, (ICorProfilerCallback11 * self))                       \
	X(HRESULT, RemotingServerReceivingMessage,                                                          \
	  (ICorProfilerCallback11 * self, GUID * pCookie, BOOL fIsAsync))                                   \
	X(HRESULT, RemotingServerInvocationStarted, (ICorProfilerCallback11 * self))                        \
	X(HRESULT, RemotingServerInvocationReturned, (ICorProfilerCallback11 * self))                       \
	X(HRESULT, RemotingServerSendingReply, (ICorProfilerCallback11 * self, GUID * pCookie, BOOL fIsAsync)) \
	X(HRESULT, UnmanagedToManagedTransition,                                                            \
	  (ICorProfilerCallback11 * self, FunctionID functionId, COR_PRF_TRANSITION_REASON reason))         \
	X(HRESULT, ManagedToUnmanagedTransition,                                                            \
	  (ICorProfilerCallback11 * self, FunctionID functionId, COR_PRF_TRANSITION_REASON reason))         \
	X(HRESULT, RuntimeSuspendStarted, (ICorProfilerCallback11 * self, COR_PRF_SUSPEND_REASON suspendReason)) \
	X(HRESULT, RuntimeSuspendFinished, (ICorProfilerCallback11 * self))                                 \
	X(HRESULT, RuntimeSuspendAborted, (ICorProfilerCallback11 * self))                                  \
	X(HRESULT, RuntimeResumeStarted, (ICorProfilerCallback11 * self))                                   \
	X(HRESULT, RuntimeResumeFinished, (ICorProfilerCallback11 * self))                                  \
	X(HRESULT, RuntimeThreadSuspended, (ICorProfilerCallback11 * self, ThreadID threadId))              \
	X(HRESULT, RuntimeThreadResumed, (ICorProfilerCallback11 * self, ThreadID threadId))                \
	X(HRESULT, MovedReferences,                                                                         \
	  (ICorProfilerCallback11 * self, ULONG cMovedObjectIDRanges, ObjectID * oldObjectIDRangeStart,     \
	   ObjectID * newObjectIDRangeStart, ULONG * cObjectIDRangeLength))                                 \
	X(HRESULT, ObjectAllocated, (ICorProfilerCallback11 * self, ObjectID objectId, ClassID classId))    \
	X(HRESULT, ObjectsAllocatedByClass,                                                                 \
	  (ICorProfilerCallback11 * self, ULONG cClassCount, ClassID * classIds, ULONG * cObjects))         \
	X(HRESULT, ObjectReferences,                                                                        \
	  (ICorProfilerCallback11 * self, ObjectID objectId, ClassID classId, ULONG cObjectRefs,            \
	   ObjectID * objectRefIds))                                                                        \
	X(HRESULT, RootReferences, (ICorProfilerCallback11 * self, ULONG cRootRefs, ObjectID * rootRefIds)) \
	X(HRESULT, ExceptionThrown, (ICorProfilerCallback11 * self, ObjectID thrownObjectId))               \
	X(HRESULT, ExceptionSearchFunctionEnter, (ICorProfilerCallback11 * self, FunctionID functionId))    \
	X(HRESULT, ExceptionSearchFunctionLeave, (ICorProfilerCallback11 * self))                           \
	X(HRESULT, ExceptionSearchFilterEnter, (ICorProfilerCallback11 * self, FunctionID functionId))      \
	X(HRESULT, ExceptionSearchFilterLeave, (ICorProfilerCallback11 * self))                             \
	X(HRESULT, ExceptionSearchCatcherFound, (ICorProfilerCallback11 * self, FunctionID functionId))     \
	X(HRESULT, ExceptionOSHandlerEnter, (ICorProfilerCallback11 * self, UINT_PTR reserved))             \
	X(HRESULT, ExceptionOSHandlerLeave, (ICorProfilerCallback11 * self, UINT_PTR reserved))             \
	X(HRESULT, ExceptionUnwindFunctionEnter, (ICorProfilerCallback11 * self, FunctionID functionId))    \
	X(HRESULT, ExceptionUnwindFunctionLeave, (ICorProfilerCallback11 * self))                           \
	X(HRESULT, ExceptionUnwindFinallyEnter, (ICorProfilerCallback11 * self, FunctionID functionId))     \
	X(HRESULT, ExceptionUnwindFinallyLeave, (ICorProfilerCallback11 * self))                            \
	X(HRESULT, ExceptionCatcherEnter, (ICorProfilerCallback11 * self, FunctionID functionId, ObjectID objectId)) \
	X(HRESULT, ExceptionCatcherLeave, (ICorProfilerCallback11 * self))                                  \
	X(HRESULT, COMClassicVTableCreated,                                                                 \
	  (ICorProfilerCallback11 * self, ClassID wrappedClassId, REFGUID implementedIID, void *pVTable,    \
	   ULONG cSlots))                                                                                   \
	X(HRESULT, COMClassicVTableDestroyed,                                                               \
	  (ICorProfilerCallback11 * self, ClassID wrappedClassId, REFGUID implementedIID, void *pVTable))   \
	X(HRESULT, ExceptionCLRCatcherFound, (ICorProfilerCallback11 * self))                               \
	X(HRESULT, ExceptionCLRCatcherExecute, (ICorProfilerCallback11 * self))

/* ICorProfilerCallback2: slots 72..79 (8 methods) */
#define CORPROF_CALLBACK2_METHODS(X)                                                                       \
	X(HRESULT, ThreadNameChanged,                                                                       \
	  (ICorProfilerCallback11 * self, ThreadID threadId, ULONG cchName, WCHAR * name))                  \
	X(HRESULT, GarbageCollectionStarted,                                                                \
	  (ICorProfilerCallback11 * self, int cGenerations, BOOL *generationCollected,                      \
	   COR_PRF_GC_REASON reason))                                                                       \
	X(HRESULT, SurvivingReferences,                                                                     \
	  (ICorProfilerCallback11 * self, ULONG cSurvivingObjectIDRanges, ObjectID * objectIDRangeStart,    \
	   ULONG * cObjectIDRangeLength))                                                                   \
	X(HRESULT, GarbageCollectionFinished, (ICorProfilerCallback11 * self))                              \
	X(HRESULT, FinalizeableObjectQueued,                                                                \
	  (ICorProfilerCallback11 * self, DWORD finalizerFlags, ObjectID objectID))                         \
	X(HRESULT, RootReferences2,                                                                         \
	  (ICorProfilerCallback11 * self, ULONG cRootRefs, ObjectID * rootRefIds,                           \
	   COR_PRF_GC_ROOT_KIND * rootKinds, COR_PRF_GC_ROOT_FLAGS * rootFlags, UINT_PTR * rootIds))        \
	X(HRESULT, HandleCreated, (ICorProfilerCallback11 * self, GCHandleID handleId, ObjectID initialObjectId)) \
	X(HRESULT, HandleDestroyed, (ICorProfilerCallback11 * self, GCHandleID handleId))

/* ICorProfilerCallback3: slots 80..82 (3 methods) */
#define CORPROF_CALLBACK3_METHODS(X)                                                                       \
	X(HRESULT, InitializeForAttach,                                                                     \
	  (ICorProfilerCallback11 * self, IUnknown * pCorProfilerInfoUnk, void *pvClientData, UINT cbClientData)) \
	X(HRESULT, ProfilerAttachComplete, (ICorProfilerCallback11 * self))                                 \
	X(HRESULT, ProfilerDetachSucceeded, (ICorProfilerCallback11 * self))

/* ICorProfilerCallback4: slots 83..88 (6 methods) */
#define CORPROF_CALLBACK4_METHODS(X)                                                                       \
	X(HRESULT, ReJITCompilationStarted,                                                                 \
	  (ICorProfilerCallback11 * self, FunctionID functionId, ReJITID rejitId, BOOL fIsSafeToBlock))     \
	X(HRESULT, GetReJITParameters,                                                                      \
	  (ICorProfilerCallback11 * self, ModuleID moduleId, mdMethodDef methodId,                          \
	   ICorProfilerFunctionControl * pFunctionControl))                                                 \
	X(HRESULT, ReJITCompilationFinished,                                                                \
	  (ICorProfilerCallback11 * self, FunctionID functionId, ReJITID rejitId, HRESULT hrStatus,         \
	   BOOL fIsSafeToBlock))                                                                            \
	X(HRESULT, ReJITError,                                                                              \
	  (ICorProfilerCallback11 * self, ModuleID moduleId, mdMethodDef methodId, FunctionID functionId,   \
	   HRESULT hrStatus))                                                                               \
	X(HRESULT, MovedReferences2,                                                                        \
	  (ICorProfilerCallback11 * self, ULONG cMovedObjectIDRanges, ObjectID * oldObjectIDRangeStart,     \
	   ObjectID * newObjectIDRangeStart, SIZE_T * cObjectIDRangeLength))                                \
	X(HRESULT, SurvivingReferences2,                                                                    \
	  (ICorProfilerCallback11 * self, ULONG cSurvivingObjectIDRanges, ObjectID * objectIDRangeStart,    \
	   SIZE_T * cObjectIDRangeLength))

/* ICorProfilerCallback5: slot 89 */
#define CORPROF_CALLBACK5_METHODS(X)                                                                       \
	X(HRESULT, ConditionalWeakTableElementReferences,                                                   \
	  (ICorProfilerCallback11 * self, ULONG cRootRefs, ObjectID * keyRefIds, ObjectID * valueRefIds,    \
	   GCHandleID * rootIds))

/* ICorProfilerCallback6: slot 90 (never called by CoreCLR) */
#define CORPROF_CALLBACK6_METHODS(X)                                                                       \
	X(HRESULT, GetAssemblyReferences,                                                                   \
	  (ICorProfilerCallback11 * self, const WCHAR *wszAssemblyPath,                                     \
	   ICorProfilerAssemblyReferenceProvider *pAsmRefProvider))

/* ICorProfilerCallback7: slot 91 */
#define CORPROF_CALLBACK7_METHODS(X) \
	X(HRESULT, ModuleInMemorySymbolsUpdated, (ICorProfilerCallback11 * self, ModuleID moduleId))

/* ICorProfilerCallback8: slots 92..93 */
#define CORPROF_CALLBACK8_METHODS(X)                                                                       \
	X(HRESULT, DynamicMethodJITCompilationStarted,                                                      \
	  (ICorProfilerCallback11 * self, FunctionID functionId, BOOL fIsSafeToBlock, LPCBYTE pILHeader,    \
	   ULONG cbILHeader))                                                                               \
	X(HRESULT, DynamicMethodJITCompilationFinished,                                                     \
	  (ICorProfilerCallback11 * self, FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock))

/* ICorProfilerCallback9: slot 94 */
#define CORPROF_CALLBACK9_METHODS(X) \
	X(HRESULT, DynamicMethodUnloaded, (ICorProfilerCallback11 * self, FunctionID functionId))

/* ICorProfilerCallback10: slots 95..96 */
#define CORPROF_CALLBACK10_METHODS(X)                                                                      \
	X(HRESULT, EventPipeEventDelivered,                                                                 \
	  (ICorProfilerCallback11 * self, EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion,   \
	   ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData,                \
	   LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread, ULONG numStackFrames,     \
	   UINT_PTR * stackFrames))                                                                         \
	X(HRESULT, EventPipeProviderCreated, (ICorProfilerCallback11 * self, EVENTPIPE_PROVIDER provider))

/* ICorProfilerCallback11: slot 97 */
#define CORPROF_CALLBACK11_METHODS(X) \
	X(HRESULT, LoadAsNotificationOnly, (ICorProfilerCallback11 * self, BOOL * pbNotificationOnly))

#define CORPROF_CALLBACK_METHODS(X)          \
	CORPROF_CALLBACK_IUNKNOWN_METHODS(X) \
	CORPROF_CALLBACK1_METHODS(X)         \
	CORPROF_CALLBACK2_METHODS(X)         \
	CORPROF_CALLBACK3_METHODS(X)         \
	CORPROF_CALLBACK4_METHODS(X)         \
	CORPROF_CALLBACK5_METHODS(X)         \
	CORPROF_CALLBACK6_METHODS(X)         \
	CORPROF_CALLBACK7_METHODS(X)         \
	CORPROF_CALLBACK8_METHODS(X)         \
	CORPROF_CALLBACK9_METHODS(X)         \
	CORPROF_CALLBACK10_METHODS(X)        \
	CORPROF_CALLBACK11_METHODS(X)

/* Cumulative slot counts (IUnknown included) of each callback version. */
#define CORPROF_CALLBACK1_SLOTS 72
#define CORPROF_CALLBACK2_SLOTS 80
#define CORPROF_CALLBACK3_SLOTS 83
#define CORPROF_CALLBACK4_SLOTS 89
#define CORPROF_CALLBACK5_SLOTS 90
#define CORPROF_CALLBACK6_SLOTS 91
#define CORPROF_CALLBACK7_SLOTS 92
#define CORPROF_CALLBACK8_SLOTS 94
#define CORPROF_CALLBACK9_SLOTS 95
#define CORPROF_CALLBACK10_SLOTS 97
#define CORPROF_CALLBACK11_SLOTS 98
#define CORPROF_CALLBACK_SLOT_COUNT CORPROF_CALLBACK11_SLOTS

struct ICorProfilerCallback11Vtbl {
	CORPROF_CALLBACK_METHODS(CORPROF_DECLARE_SLOT)
};
struct ICorProfilerCallback11 {
	const struct ICorProfilerCallback11Vtbl *vtbl;
};

/* Older names: same object, vtable prefix (see the top of this file). */
typedef struct ICorProfilerCallback11 ICorProfilerCallback;
typedef struct ICorProfilerCallback11 ICorProfilerCallback2;
typedef struct ICorProfilerCallback11 ICorProfilerCallback3;
typedef struct ICorProfilerCallback11 ICorProfilerCallback4;
typedef struct ICorProfilerCallback11 ICorProfilerCallback5;
typedef struct ICorProfilerCallback11 ICorProfilerCallback6;
typedef struct ICorProfilerCallback11 ICorProfilerCallback7;
typedef struct ICorProfilerCallback11 ICorProfilerCallback8;
typedef struct ICorProfilerCallback11 ICorProfilerCallback9;
typedef struct ICorProfilerCallback11 ICorProfilerCallback10;

#define CORPROF_CB_SLOT(name) (offsetof(struct ICorProfilerCallback11Vtbl, name) / sizeof(void *))
_Static_assert(CORPROF_CB_SLOT(Initialize) == 3, "Callback: first own slot");
_Static_assert(CORPROF_CB_SLOT(ExceptionCLRCatcherExecute) == CORPROF_CALLBACK1_SLOTS - 1, "Callback1 end");
_Static_assert(CORPROF_CB_SLOT(ThreadNameChanged) == CORPROF_CALLBACK1_SLOTS, "Callback2 start");
_Static_assert(CORPROF_CB_SLOT(InitializeForAttach) == CORPROF_CALLBACK2_SLOTS, "Callback3 start");
_Static_assert(CORPROF_CB_SLOT(ReJITCompilationStarted) == CORPROF_CALLBACK3_SLOTS, "Callback4 start");
_Static_assert(CORPROF_CB_SLOT(ConditionalWeakTableElementReferences) == CORPROF_CALLBACK4_SLOTS,
	       "Callback5 start");
_Static_assert(CORPROF_CB_SLOT(GetAssemblyReferences) == CORPROF_CALLBACK5_SLOTS, "Callback6 start");
_Static_assert(CORPROF_CB_SLOT(ModuleInMemorySymbolsUpdated) == CORPROF_CALLBACK6_SLOTS, "Callback7 start");
_Static_assert(CORPROF_CB_SLOT(DynamicMethodJITCompilationStarted) == CORPROF_CALLBACK7_SLOTS, "Callback8 start");
_Static_assert(CORPROF_CB_SLOT(DynamicMethodUnloaded) == CORPROF_CALLBACK8_SLOTS, "Callback9 start");
_Static_assert(CORPROF_CB_SLOT(EventPipeEventDelivered) == CORPROF_CALLBACK9_SLOTS, "Callback10 start");
_Static_assert(CORPROF_CB_SLOT(LoadAsNotificationOnly) == CORPROF_CALLBACK10_SLOTS, "Callback11 start");
_Static_assert(sizeof(struct ICorProfilerCallback11Vtbl) == 98 * sizeof(void *), "ICorProfilerCallback11: 98 slots");

/* ======================================================================== */
/* ICorProfilerInfo .. ICorProfilerInfo15 (implemented by the runtime)      */
/* ======================================================================== */

struct ICorProfilerInfo15Vtbl {
	/* IUnknown: slots 0..2 */
	HRESULT (*QueryInterface)(ICorProfilerInfo15 *self, REFIID riid, void **ppvObject);
	ULONG (*AddRef)(ICorProfilerInfo15 *self);
	ULONG (*Release)(ICorProfilerInfo15 *self);

	/* ICorProfilerInfo: slots 3..35 (33 methods; running total 36) */
	HRESULT (*GetClassFromObject)(ICorProfilerInfo15 *self, ObjectID objectId, ClassID *pClassId);
	HRESULT (*GetClassFromToken)(ICorProfilerInfo15 *self, ModuleID moduleId, mdTypeDef typeDef, ClassID *pClassId);
	HRESULT (*GetCodeInfo)(ICorProfilerInfo15 *self, FunctionID functionId, LPCBYTE *pStart, ULONG *pcSize);
	HRESULT (*GetEventMask)(ICorProfilerInfo15 *self, DWORD *pdwEvents);
	HRESULT (*GetFunctionFromIP)(ICorProfilerInfo15 *self, LPCBYTE ip, FunctionID *pFunctionId);
	HRESULT (*GetFunctionFromToken)(ICorProfilerInfo15 *self, ModuleID moduleId, mdToken token,
					FunctionID *pFunctionId);
	HRESULT (*GetHandleFromThread)(ICorProfilerInfo15 *self, ThreadID threadId, HANDLE *phThread);
	HRESULT (*GetObjectSize)(ICorProfilerInfo15 *self, ObjectID objectId, ULONG *pcSize);
	HRESULT (*IsArrayClass)(ICorProfilerInfo15 *self, ClassID classId, CorElementType *pBaseElemType,
				ClassID *pBaseClassId, ULONG *pcRank);
	HRESULT (*GetThreadInfo)(ICorProfilerInfo15 *self, ThreadID threadId, DWORD *pdwWin32ThreadId);
	HRESULT (*GetCurrentThreadID)(ICorProfilerInfo15 *self, ThreadID *pThreadId);
	HRESULT (*GetClassIDInfo)(ICorProfilerInfo15 *self, ClassID classId, ModuleID *pModuleId,
				  mdTypeDef *pTypeDefToken);
	HRESULT (*GetFunctionInfo)(ICorProfilerInfo15 *self, FunctionID functionId, ClassID *pClassId,
				   ModuleID *pModuleId, mdToken *pToken);
	HRESULT (*SetEventMask)(ICorProfilerInfo15 *self, DWORD dwEvents);
	HRESULT (*SetEnterLeaveFunctionHooks)(ICorProfilerInfo15 *self, FunctionEnter *pFuncEnter,
					      FunctionLeave *pFuncLeave, FunctionTailcall *pFuncTailcall);
	HRESULT (*SetFunctionIDMapper)(ICorProfilerInfo15 *self, FunctionIDMapper *pFunc);
	HRESULT (*GetTokenAndMetaDataFromFunction)(ICorProfilerInfo15 *self, FunctionID functionId, REFIID riid,
						   IUnknown **ppImport, mdToken *pToken);
	HRESULT (*GetModuleInfo)(ICorProfilerInfo15 *self, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress,
				 ULONG cchName, ULONG *pcchName, WCHAR *szName, AssemblyID *pAssemblyId);
	HRESULT (*GetModuleMetaData)(ICorProfilerInfo15 *self, ModuleID moduleId, DWORD dwOpenFlags, REFIID riid,
				     IUnknown **ppOut);
	HRESULT (*GetILFunctionBody)(ICorProfilerInfo15 *self, ModuleID moduleId, mdMethodDef methodId,
				     LPCBYTE *ppMethodHeader, ULONG *pcbMethodSize);
	HRESULT (*GetILFunctionBodyAllocator)(ICorProfilerInfo15 *self, ModuleID moduleId, IMethodMalloc **ppMalloc);
	HRESULT (*SetILFunctionBody)(ICorProfilerInfo15 *self, ModuleID moduleId, mdMethodDef methodid,
				     LPCBYTE pbNewILMethodHeader);
	HRESULT (*GetAppDomainInfo)(ICorProfilerInfo15 *self, AppDomainID appDomainId, ULONG cchName,
				    ULONG *pcchName, WCHAR *szName, ProcessID *pProcessId);
	HRESULT (*GetAssemblyInfo)(ICorProfilerInfo15 *self, AssemblyID assemblyId, ULONG cchName, ULONG *pcchName,
				   WCHAR *szName, AppDomainID *pAppDomainId, ModuleID *pModuleId);
	HRESULT (*SetFunctionReJIT)(ICorProfilerInfo15 *self, FunctionID functionId); /* E_NOTIMPL */
	HRESULT (*ForceGC)(ICorProfilerInfo15 *self);
	HRESULT (*SetILInstrumentedCodeMap)(ICorProfilerInfo15 *self, FunctionID functionId, BOOL fStartJit,
					    ULONG cILMapEntries, COR_IL_MAP *rgILMapEntries);
	HRESULT (*GetInprocInspectionInterface)(ICorProfilerInfo15 *self, IUnknown **ppicd);
	HRESULT (*GetInprocInspectionIThisThread)(ICorProfilerInfo15 *self, IUnknown **ppicd);
	HRESULT (*GetThreadContext)(ICorProfilerInfo15 *self, ThreadID threadId, ContextID *pContextId);
	HRESULT (*BeginInprocDebugging)(ICorProfilerInfo15 *self, BOOL fThisThreadOnly, DWORD *pdwProfilerContext);
	HRESULT (*EndInprocDebugging)(ICorProfilerInfo15 *self, DWORD dwProfilerContext);
	HRESULT (*GetILToNativeMapping)(ICorProfilerInfo15 *self, FunctionID functionId, ULONG32 cMap,
					ULONG32 *pcMap, COR_DEBUG_IL_TO_NATIVE_MAP *map);

	/* ICorProfilerInfo2: slots 36..56 (21 methods; running total 57) */
	HRESULT (*DoStackSnapshot)(ICorProfilerInfo15 *self, ThreadID thread, StackSnapshotCallback *callback,
				   ULONG32 infoFlags, void *clientData, BYTE *context, ULONG32 contextSize);
	HRESULT (*SetEnterLeaveFunctionHooks2)(ICorProfilerInfo15 *self, FunctionEnter2 *pFuncEnter,
					       FunctionLeave2 *pFuncLeave, FunctionTailcall2 *pFuncTailcall);
	HRESULT (*GetFunctionInfo2)(ICorProfilerInfo15 *self, FunctionID funcId, COR_PRF_FRAME_INFO frameInfo,
				    ClassID *pClassId, ModuleID *pModuleId, mdToken *pToken, ULONG32 cTypeArgs,
				    ULONG32 *pcTypeArgs, ClassID *typeArgs);
	HRESULT (*GetStringLayout)(ICorProfilerInfo15 *self, ULONG *pBufferLengthOffset, ULONG *pStringLengthOffset,
				   ULONG *pBufferOffset);
	HRESULT (*GetClassLayout)(ICorProfilerInfo15 *self, ClassID classID, COR_FIELD_OFFSET *rFieldOffset,
				  ULONG cFieldOffset, ULONG *pcFieldOffset, ULONG *pulClassSize);
	HRESULT (*GetClassIDInfo2)(ICorProfilerInfo15 *self, ClassID classId, ModuleID *pModuleId,
				   mdTypeDef *pTypeDefToken, ClassID *pParentClassId, ULONG32 cNumTypeArgs,
				   ULONG32 *pcNumTypeArgs, ClassID *typeArgs);
	HRESULT (*GetCodeInfo2)(ICorProfilerInfo15 *self, FunctionID functionID, ULONG32 cCodeInfos,
				ULONG32 *pcCodeInfos, COR_PRF_CODE_INFO *codeInfos);
	HRESULT (*GetClassFromTokenAndTypeArgs)(ICorProfilerInfo15 *self, ModuleID moduleID, mdTypeDef typeDef,
						ULONG32 cTypeArgs, ClassID *typeArgs, ClassID *pClassID);
	HRESULT (*GetFunctionFromTokenAndTypeArgs)(ICorProfilerInfo15 *self, ModuleID moduleID, mdMethodDef funcDef,
						   ClassID classId, ULONG32 cTypeArgs, ClassID *typeArgs,
						   FunctionID *pFunctionID);
	HRESULT (*EnumModuleFrozenObjects)(ICorProfilerInfo15 *self, ModuleID moduleID,
					   ICorProfilerObjectEnum **ppEnum);
	HRESULT (*GetArrayObjectInfo)(ICorProfilerInfo15 *self, ObjectID objectId, ULONG32 cDimensions,
				      ULONG32 *pDimensionSizes, int *pDimensionLowerBounds, BYTE **ppData);
	HRESULT (*GetBoxClassLayout)(ICorProfilerInfo15 *self, ClassID classId, ULONG32 *pBufferOffset);
	HRESULT (*GetThreadAppDomain)(ICorProfilerInfo15 *self, ThreadID threadId, AppDomainID *pAppDomainId);
	HRESULT (*GetRVAStaticAddress)(ICorProfilerInfo15 *self, ClassID classId, mdFieldDef fieldToken,
				       void **ppAddress);
	HRESULT (*GetAppDomainStaticAddress)(ICorProfilerInfo15 *self, ClassID classId, mdFieldDef fieldToken,
					     AppDomainID appDomainId, void **ppAddress);
	HRESULT (*GetThreadStaticAddress)(ICorProfilerInfo15 *self, ClassID classId, mdFieldDef fieldToken,
					  ThreadID threadId, void **ppAddress);
	HRESULT (*GetContextStaticAddress)(ICorProfilerInfo15 *self, ClassID classId, mdFieldDef fieldToken,
					   ContextID contextId, void **ppAddress);
	HRESULT (*GetStaticFieldInfo)(ICorProfilerInfo15 *self, ClassID classId, mdFieldDef fieldToken,
				      COR_PRF_STATIC_TYPE *pFieldInfo);
	HRESULT (*GetGenerationBounds)(ICorProfilerInfo15 *self, ULONG cObjectRanges, ULONG *pcObjectRanges,
				       COR_PRF_GC_GENERATION_RANGE *ranges);
	HRESULT (*GetObjectGeneration)(ICorProfilerInfo15 *self, ObjectID objectId,
				       COR_PRF_GC_GENERATION_RANGE *range);
	HRESULT (*GetNotifiedExceptionClauseInfo)(ICorProfilerInfo15 *self, COR_PRF_EX_CLAUSE_INFO *pinfo);

	/* ICorProfilerInfo3: slots 57..70 (14 methods; running total 71) */
	HRESULT (*EnumJITedFunctions)(ICorProfilerInfo15 *self, ICorProfilerFunctionEnum **ppEnum);
	HRESULT (*RequestProfilerDetach)(ICorProfilerInfo15 *self, DWORD dwExpectedCompletionMilliseconds);
	HRESULT (*SetFunctionIDMapper2)(ICorProfilerInfo15 *self, FunctionIDMapper2 *pFunc, void *clientData);
	HRESULT (*GetStringLayout2)(ICorProfilerInfo15 *self, ULONG *pStringLengthOffset, ULONG *pBufferOffset);
	HRESULT (*SetEnterLeaveFunctionHooks3)(ICorProfilerInfo15 *self, FunctionEnter3 *pFuncEnter3,
					       FunctionLeave3 *pFuncLeave3, FunctionTailcall3 *pFuncTailcall3);
	HRESULT (*SetEnterLeaveFunctionHooks3WithInfo)(ICorProfilerInfo15 *self,
						       FunctionEnter3WithInfo *pFuncEnter3WithInfo,
						       FunctionLeave3WithInfo *pFuncLeave3WithInfo,
						       FunctionTailcall3WithInfo *pFuncTailcall3WithInfo);
	HRESULT (*GetFunctionEnter3Info)(ICorProfilerInfo15 *self, FunctionID functionId, COR_PRF_ELT_INFO eltInfo,
					 COR_PRF_FRAME_INFO *pFrameInfo, ULONG *pcbArgumentInfo,
					 COR_PRF_FUNCTION_ARGUMENT_INFO *pArgumentInfo);
	HRESULT (*GetFunctionLeave3Info)(ICorProfilerInfo15 *self, FunctionID functionId, COR_PRF_ELT_INFO eltInfo,
					 COR_PRF_FRAME_INFO *pFrameInfo, COR_PRF_FUNCTION_ARGUMENT_RANGE *pRetvalRange);
	HRESULT (*GetFunctionTailcall3Info)(ICorProfilerInfo15 *self, FunctionID functionId,
					    COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO *pFrameInfo);
	HRESULT (*EnumModules)(ICorProfilerInfo15 *self, ICorProfilerModuleEnum **ppEnum);
	HRESULT (*GetRuntimeInformation)(ICorProfilerInfo15 *self, USHORT *pClrInstanceId,
					 COR_PRF_RUNTIME_TYPE *pRuntimeType, USHORT *pMajorVersion,
					 USHORT *pMinorVersion, USHORT *pBuildNumber, USHORT *pQFEVersion,
					 ULONG cchVersionString, ULONG *pcchVersionString, WCHAR *szVersionString);
	HRESULT (*GetThreadStaticAddress2)(ICorProfilerInfo15 *self, ClassID classId, mdFieldDef fieldToken,
					   AppDomainID appDomainId, ThreadID threadId, void **ppAddress);
	HRESULT (*GetAppDomainsContainingModule)(ICorProfilerInfo15 *self, ModuleID moduleId, ULONG32 cAppDomainIds,
						 ULONG32 *pcAppDomainIds, AppDomainID *appDomainIds);
	HRESULT (*GetModuleInfo2)(ICorProfilerInfo15 *self, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress,
				  ULONG cchName, ULONG *pcchName, WCHAR *szName, AssemblyID *pAssemblyId,
				  DWORD *pdwModuleFlags);

	/* ICorProfilerInfo4: slots 71..80 (10 methods; running total 81) */
	HRESULT (*EnumThreads)(ICorProfilerInfo15 *self, ICorProfilerThreadEnum **ppEnum);
	HRESULT (*InitializeCurrentThread)(ICorProfilerInfo15 *self);
	HRESULT (*RequestReJIT)(ICorProfilerInfo15 *self, ULONG cFunctions, ModuleID *moduleIds,
				mdMethodDef *methodIds);
	HRESULT (*RequestRevert)(ICorProfilerInfo15 *self, ULONG cFunctions, ModuleID *moduleIds,
				 mdMethodDef *methodIds, HRESULT *status);
	HRESULT (*GetCodeInfo3)(ICorProfilerInfo15 *self, FunctionID functionID, ReJITID reJitId, ULONG32 cCodeInfos,
				ULONG32 *pcCodeInfos, COR_PRF_CODE_INFO *codeInfos);
	HRESULT (*GetFunctionFromIP2)(ICorProfilerInfo15 *self, LPCBYTE ip, FunctionID *pFunctionId,
				      ReJITID *pReJitId);
	HRESULT (*GetReJITIDs)(ICorProfilerInfo15 *self, FunctionID functionId, ULONG cReJitIds, ULONG *pcReJitIds,
			       ReJITID *reJitIds);
	HRESULT (*GetILToNativeMapping2)(ICorProfilerInfo15 *self, FunctionID functionId, ReJITID reJitId,
					 ULONG32 cMap, ULONG32 *pcMap, COR_DEBUG_IL_TO_NATIVE_MAP *map);
	HRESULT (*EnumJITedFunctions2)(ICorProfilerInfo15 *self, ICorProfilerFunctionEnum **ppEnum);
	HRESULT (*GetObjectSize2)(ICorProfilerInfo15 *self, ObjectID objectId, SIZE_T *pcSize);

	/* ICorProfilerInfo5: slots 81..82 (running total 83) */
	HRESULT (*GetEventMask2)(ICorProfilerInfo15 *self, DWORD *pdwEventsLow, DWORD *pdwEventsHigh);
	HRESULT (*SetEventMask2)(ICorProfilerInfo15 *self, DWORD dwEventsLow, DWORD dwEventsHigh);

	/* ICorProfilerInfo6: slot 83 (running total 84) */
	HRESULT (*EnumNgenModuleMethodsInliningThisMethod)(ICorProfilerInfo15 *self, ModuleID inlinersModuleId,
							   ModuleID inlineeModuleId, mdMethodDef inlineeMethodId,
							   BOOL *incompleteData, ICorProfilerMethodEnum **ppEnum);

	/* ICorProfilerInfo7: slots 84..86 (running total 87) */
	HRESULT (*ApplyMetaData)(ICorProfilerInfo15 *self, ModuleID moduleId);
	HRESULT (*GetInMemorySymbolsLength)(ICorProfilerInfo15 *self, ModuleID moduleId, DWORD *pCountSymbolBytes);
	HRESULT (*ReadInMemorySymbols)(ICorProfilerInfo15 *self, ModuleID moduleId, DWORD symbolsReadOffset,
				       BYTE *pSymbolBytes, DWORD countSymbolBytes, DWORD *pCountSymbolBytesRead);

	/* ICorProfilerInfo8: slots 87..89 (running total 90) */
	HRESULT (*IsFunctionDynamic)(ICorProfilerInfo15 *self, FunctionID functionId, BOOL *isDynamic);
	HRESULT (*GetFunctionFromIP3)(ICorProfilerInfo15 *self, LPCBYTE ip, FunctionID *functionId,
				      ReJITID *pReJitId);
	HRESULT (*GetDynamicFunctionInfo)(ICorProfilerInfo15 *self, FunctionID functionId, ModuleID *moduleId,
					  PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, ULONG cchName, ULONG *pcchName,
					  WCHAR *wszName);

	/* ICorProfilerInfo9: slots 90..92 (running total 93) */
	HRESULT (*GetNativeCodeStartAddresses)(ICorProfilerInfo15 *self, FunctionID functionID, ReJITID reJitId,
					       ULONG32 cCodeStartAddresses, ULONG32 *pcCodeStartAddresses,
					       UINT_PTR *codeStartAddresses);
	HRESULT (*GetILToNativeMapping3)(ICorProfilerInfo15 *self, UINT_PTR pNativeCodeStartAddress, ULONG32 cMap,
					 ULONG32 *pcMap, COR_DEBUG_IL_TO_NATIVE_MAP *map);
	HRESULT (*GetCodeInfo4)(ICorProfilerInfo15 *self, UINT_PTR pNativeCodeStartAddress, ULONG32 cCodeInfos,
				ULONG32 *pcCodeInfos, COR_PRF_CODE_INFO *codeInfos);

	/* ICorProfilerInfo10: slots 93..98 (running total 99) */
	HRESULT (*EnumerateObjectReferences)(ICorProfilerInfo15 *self, ObjectID objectId,
					     ObjectReferenceCallback *callback, void *clientData);
	HRESULT (*IsFrozenObject)(ICorProfilerInfo15 *self, ObjectID objectId, BOOL *pbFrozen);
	HRESULT (*GetLOHObjectSizeThreshold)(ICorProfilerInfo15 *self, DWORD *pThreshold);
	HRESULT (*RequestReJITWithInliners)(ICorProfilerInfo15 *self, DWORD dwRejitFlags, ULONG cFunctions,
					    ModuleID *moduleIds, mdMethodDef *methodIds);
	HRESULT (*SuspendRuntime)(ICorProfilerInfo15 *self);
	HRESULT (*ResumeRuntime)(ICorProfilerInfo15 *self);

	/* ICorProfilerInfo11: slots 99..100 (running total 101) */
	HRESULT (*GetEnvironmentVariable)(ICorProfilerInfo15 *self, const WCHAR *szName, ULONG cchValue,
					  ULONG *pcchValue, WCHAR *szValue);
	HRESULT (*SetEnvironmentVariable)(ICorProfilerInfo15 *self, const WCHAR *szName, const WCHAR *szValue);

	/* ICorProfilerInfo12: slots 101..107 (running total 108) */
	HRESULT (*EventPipeStartSession)(ICorProfilerInfo15 *self, UINT32 cProviderConfigs,
					 COR_PRF_EVENTPIPE_PROVIDER_CONFIG *pProviderConfigs, BOOL requestRundown,
					 EVENTPIPE_SESSION *pSession);
	HRESULT (*EventPipeAddProviderToSession)(ICorProfilerInfo15 *self, EVENTPIPE_SESSION session,
						 COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig);
	HRESULT (*EventPipeStopSession)(ICorProfilerInfo15 *self, EVENTPIPE_SESSION session);
	HRESULT (*EventPipeCreateProvider)(ICorProfilerInfo15 *self, const WCHAR *providerName,
					   EVENTPIPE_PROVIDER *pProvider);
	HRESULT (*EventPipeGetProviderInfo)(ICorProfilerInfo15 *self, EVENTPIPE_PROVIDER provider, ULONG cchName,
					    ULONG *pcchName, WCHAR *providerName);
	HRESULT (*EventPipeDefineEvent)(ICorProfilerInfo15 *self, EVENTPIPE_PROVIDER provider, const WCHAR *eventName,
					UINT32 eventID, UINT64 keywords, UINT32 eventVersion, UINT32 level,
					UINT8 opcode, BOOL needStack, UINT32 cParamDescs,
					COR_PRF_EVENTPIPE_PARAM_DESC *pParamDescs, EVENTPIPE_EVENT *pEvent);
	HRESULT (*EventPipeWriteEvent)(ICorProfilerInfo15 *self, EVENTPIPE_EVENT event, UINT32 cData,
				       COR_PRF_EVENT_DATA *data, LPCGUID pActivityId, LPCGUID pRelatedActivityId);

	/* ICorProfilerInfo13: slots 108..110 (running total 111) */
	HRESULT (*CreateHandle)(ICorProfilerInfo15 *self, ObjectID object, COR_PRF_HANDLE_TYPE type,
				ObjectHandleID *pHandle);
	HRESULT (*DestroyHandle)(ICorProfilerInfo15 *self, ObjectHandleID handle);
	HRESULT (*GetObjectIDFromHandle)(ICorProfilerInfo15 *self, ObjectHandleID handle, ObjectID *pObject);

	/* ICorProfilerInfo14: slots 111..113 (running total 114) */
	HRESULT (*EnumerateNonGCObjects)(ICorProfilerInfo15 *self, ICorProfilerObjectEnum **ppEnum);
	HRESULT (*GetNonGCHeapBounds)(ICorProfilerInfo15 *self, ULONG cObjectRanges, ULONG *pcObjectRanges,
				      COR_PRF_NONGC_HEAP_RANGE *ranges);
	HRESULT (*EventPipeCreateProvider2)(ICorProfilerInfo15 *self, const WCHAR *providerName,
					    EventPipeProviderCallback *pCallback, EVENTPIPE_PROVIDER *pProvider);

	/* ICorProfilerInfo15: slot 114 (running total 115) */
	HRESULT (*EnumerateGCHeapObjects)(ICorProfilerInfo15 *self, ObjectCallback callback, void *callbackState);
};
struct ICorProfilerInfo15 {
	const struct ICorProfilerInfo15Vtbl *vtbl;
};

/* Older names: same object, vtable prefix (see the top of this file). */
typedef struct ICorProfilerInfo15 ICorProfilerInfo;
typedef struct ICorProfilerInfo15 ICorProfilerInfo2;
typedef struct ICorProfilerInfo15 ICorProfilerInfo3;
typedef struct ICorProfilerInfo15 ICorProfilerInfo4;
typedef struct ICorProfilerInfo15 ICorProfilerInfo5;
typedef struct ICorProfilerInfo15 ICorProfilerInfo6;
typedef struct ICorProfilerInfo15 ICorProfilerInfo7;
typedef struct ICorProfilerInfo15 ICorProfilerInfo8;
typedef struct ICorProfilerInfo15 ICorProfilerInfo9;
typedef struct ICorProfilerInfo15 ICorProfilerInfo10;
typedef struct ICorProfilerInfo15 ICorProfilerInfo11;
typedef struct ICorProfilerInfo15 ICorProfilerInfo12;
typedef struct ICorProfilerInfo15 ICorProfilerInfo13;
typedef struct ICorProfilerInfo15 ICorProfilerInfo14;

/* Cumulative slot counts (IUnknown included) of each info version. */
#define CORPROF_INFO1_SLOTS 36
#define CORPROF_INFO2_SLOTS 57
#define CORPROF_INFO3_SLOTS 71
#define CORPROF_INFO4_SLOTS 81
#define CORPROF_INFO5_SLOTS 83
#define CORPROF_INFO6_SLOTS 84
#define CORPROF_INFO7_SLOTS 87
#define CORPROF_INFO8_SLOTS 90
#define CORPROF_INFO9_SLOTS 93
#define CORPROF_INFO10_SLOTS 99
#define CORPROF_INFO11_SLOTS 101
#define CORPROF_INFO12_SLOTS 108
#define CORPROF_INFO13_SLOTS 111
#define CORPROF_INFO14_SLOTS 114
#define CORPROF_INFO15_SLOTS 115
#define CORPROF_INFO_SLOT_COUNT CORPROF_INFO15_SLOTS

#define CORPROF_INFO_SLOT(name) (offsetof(struct ICorProfilerInfo15Vtbl, name) / sizeof(void *))
_Static_assert(CORPROF_INFO_SLOT(GetClassFromObject) == 3, "Info: first own slot");
_Static_assert(CORPROF_INFO_SLOT(GetILToNativeMapping) == CORPROF_INFO1_SLOTS - 1, "Info1 end");
_Static_assert(CORPROF_INFO_SLOT(DoStackSnapshot) == CORPROF_INFO1_SLOTS, "Info2 start");
_Static_assert(CORPROF_INFO_SLOT(EnumJITedFunctions) == CORPROF_INFO2_SLOTS, "Info3 start");
_Static_assert(CORPROF_INFO_SLOT(EnumThreads) == CORPROF_INFO3_SLOTS, "Info4 start");
_Static_assert(CORPROF_INFO_SLOT(GetEventMask2) == CORPROF_INFO4_SLOTS, "Info5 start");
_Static_assert(CORPROF_INFO_SLOT(EnumNgenModuleMethodsInliningThisMethod) == CORPROF_INFO5_SLOTS, "Info6 start");
_Static_assert(CORPROF_INFO_SLOT(ApplyMetaData) == CORPROF_INFO6_SLOTS, "Info7 start");
_Static_assert(CORPROF_INFO_SLOT(IsFunctionDynamic) == CORPROF_INFO7_SLOTS, "Info8 start");
_Static_assert(CORPROF_INFO_SLOT(GetNativeCodeStartAddresses) == CORPROF_INFO8_SLOTS, "Info9 start");
_Static_assert(CORPROF_INFO_SLOT(EnumerateObjectReferences) == CORPROF_INFO9_SLOTS, "Info10 start");
_Static_assert(CORPROF_INFO_SLOT(GetEnvironmentVariable) == CORPROF_INFO10_SLOTS, "Info11 start");
_Static_assert(CORPROF_INFO_SLOT(EventPipeStartSession) == CORPROF_INFO11_SLOTS, "Info12 start");
_Static_assert(CORPROF_INFO_SLOT(CreateHandle) == CORPROF_INFO12_SLOTS, "Info13 start");
_Static_assert(CORPROF_INFO_SLOT(EnumerateNonGCObjects) == CORPROF_INFO13_SLOTS, "Info14 start");
_Static_assert(CORPROF_INFO_SLOT(EnumerateGCHeapObjects) == CORPROF_INFO14_SLOTS, "Info15 start");
_Static_assert(sizeof(struct ICorProfilerInfo15Vtbl) == 115 * sizeof(void *), "ICorProfilerInfo15: 115 slots");

/* ======================================================================== */
/* IMetaDataImport (cor.h; sealed; 3 + 62 = 65 slots)                       */
/* ======================================================================== */

struct IMetaDataImportVtbl {
	/* IUnknown: slots 0..2 */
	HRESULT (*QueryInterface)(IMetaDataImport *self, REFIID riid, void **ppvObject);
	ULONG (*AddRef)(IMetaDataImport *self);
	ULONG (*Release)(IMetaDataImport *self);

	/* slots 3..12 */
	void (*CloseEnum)(IMetaDataImport *self, HCORENUM hEnum);
	HRESULT (*CountEnum)(IMetaDataImport *self, HCORENUM hEnum, ULONG *pulCount);
	HRESULT (*ResetEnum)(IMetaDataImport *self, HCORENUM hEnum, ULONG ulPos);
	HRESULT (*EnumTypeDefs)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef *rTypeDefs, ULONG cMax,
				ULONG *pcTypeDefs);
	HRESULT (*EnumInterfaceImpls)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef td, mdInterfaceImpl *rImpls,
				      ULONG cMax, ULONG *pcImpls);
	HRESULT (*EnumTypeRefs)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeRef *rTypeRefs, ULONG cMax,
				ULONG *pcTypeRefs);
	HRESULT (*FindTypeDefByName)(IMetaDataImport *self, LPCWSTR szTypeDef, mdToken tkEnclosingClass,
				     mdTypeDef *ptd);
	HRESULT (*GetScopeProps)(IMetaDataImport *self, LPWSTR szName, ULONG cchName, ULONG *pchName, GUID *pmvid);
	HRESULT (*GetModuleFromScope)(IMetaDataImport *self, mdModule *pmd);
	HRESULT (*GetTypeDefProps)(IMetaDataImport *self, mdTypeDef td, LPWSTR szTypeDef, ULONG cchTypeDef,
				   ULONG *pchTypeDef, DWORD *pdwTypeDefFlags, mdToken *ptkExtends);

	/* slots 13..22 */
	HRESULT (*GetInterfaceImplProps)(IMetaDataImport *self, mdInterfaceImpl iiImpl, mdTypeDef *pClass,
					 mdToken *ptkIface);
	HRESULT (*GetTypeRefProps)(IMetaDataImport *self, mdTypeRef tr, mdToken *ptkResolutionScope, LPWSTR szName,
				   ULONG cchName, ULONG *pchName);
	HRESULT (*ResolveTypeRef)(IMetaDataImport *self, mdTypeRef tr, REFIID riid, IUnknown **ppIScope,
				  mdTypeDef *ptd);
	HRESULT (*EnumMembers)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef cl, mdToken *rMembers, ULONG cMax,
			       ULONG *pcTokens);
	HRESULT (*EnumMembersWithName)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName,
				       mdToken *rMembers, ULONG cMax, ULONG *pcTokens);
	HRESULT (*EnumMethods)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef cl, mdMethodDef *rMethods,
			       ULONG cMax, ULONG *pcTokens);
	HRESULT (*EnumMethodsWithName)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName,
				       mdMethodDef *rMethods, ULONG cMax, ULONG *pcTokens);
	HRESULT (*EnumFields)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef cl, mdFieldDef *rFields,
			      ULONG cMax, ULONG *pcTokens);
	HRESULT (*EnumFieldsWithName)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName,
				      mdFieldDef *rFields, ULONG cMax, ULONG *pcTokens);
	HRESULT (*EnumParams)(IMetaDataImport *self, HCORENUM *phEnum, mdMethodDef mb, mdParamDef *rParams,
			      ULONG cMax, ULONG *pcTokens);

	/* slots 23..32 */
	HRESULT (*EnumMemberRefs)(IMetaDataImport *self, HCORENUM *phEnum, mdToken tkParent,
				  mdMemberRef *rMemberRefs, ULONG cMax, ULONG *pcTokens);
	HRESULT (*EnumMethodImpls)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef td, mdToken *rMethodBody,
				   mdToken *rMethodDecl, ULONG cMax, ULONG *pcTokens);
	HRESULT (*EnumPermissionSets)(IMetaDataImport *self, HCORENUM *phEnum, mdToken tk, DWORD dwActions,
				      mdPermission *rPermission, ULONG cMax, ULONG *pcTokens);
	HRESULT (*FindMember)(IMetaDataImport *self, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
			      ULONG cbSigBlob, mdToken *pmb);
	HRESULT (*FindMethod)(IMetaDataImport *self, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
			      ULONG cbSigBlob, mdMethodDef *pmb);
	HRESULT (*FindField)(IMetaDataImport *self, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
			     ULONG cbSigBlob, mdFieldDef *pmb);
	HRESULT (*FindMemberRef)(IMetaDataImport *self, mdTypeRef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
				 ULONG cbSigBlob, mdMemberRef *pmr);
	HRESULT (*GetMethodProps)(IMetaDataImport *self, mdMethodDef mb, mdTypeDef *pClass, LPWSTR szMethod,
				  ULONG cchMethod, ULONG *pchMethod, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
				  ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags);
	HRESULT (*GetMemberRefProps)(IMetaDataImport *self, mdMemberRef mr, mdToken *ptk, LPWSTR szMember,
				     ULONG cchMember, ULONG *pchMember, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig);
	HRESULT (*EnumProperties)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef td, mdProperty *rProperties,
				  ULONG cMax, ULONG *pcProperties);

	/* slots 33..42 */
	HRESULT (*EnumEvents)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeDef td, mdEvent *rEvents, ULONG cMax,
			      ULONG *pcEvents);
	/* szEvent is an output buffer despite LPCWSTR (as declared in cor.h). */
	HRESULT (*GetEventProps)(IMetaDataImport *self, mdEvent ev, mdTypeDef *pClass, LPCWSTR szEvent,
				 ULONG cchEvent, ULONG *pchEvent, DWORD *pdwEventFlags, mdToken *ptkEventType,
				 mdMethodDef *pmdAddOn, mdMethodDef *pmdRemoveOn, mdMethodDef *pmdFire,
				 mdMethodDef *rmdOtherMethod, ULONG cMax, ULONG *pcOtherMethod);
	HRESULT (*EnumMethodSemantics)(IMetaDataImport *self, HCORENUM *phEnum, mdMethodDef mb, mdToken *rEventProp,
				       ULONG cMax, ULONG *pcEventProp);
	HRESULT (*GetMethodSemantics)(IMetaDataImport *self, mdMethodDef mb, mdToken tkEventProp,
				      DWORD *pdwSemanticsFlags);
	HRESULT (*GetClassLayout)(IMetaDataImport *self, mdTypeDef td, DWORD *pdwPackSize,
				  COR_FIELD_OFFSET *rFieldOffset, ULONG cMax, ULONG *pcFieldOffset,
				  ULONG *pulClassSize);
	HRESULT (*GetFieldMarshal)(IMetaDataImport *self, mdToken tk, PCCOR_SIGNATURE *ppvNativeType,
				   ULONG *pcbNativeType);
	HRESULT (*GetRVA)(IMetaDataImport *self, mdToken tk, ULONG *pulCodeRVA, DWORD *pdwImplFlags);
	HRESULT (*GetPermissionSetProps)(IMetaDataImport *self, mdPermission pm, DWORD *pdwAction,
					 const void **ppvPermission, ULONG *pcbPermission);
	HRESULT (*GetSigFromToken)(IMetaDataImport *self, mdSignature mdSig, PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig);
	HRESULT (*GetModuleRefProps)(IMetaDataImport *self, mdModuleRef mur, LPWSTR szName, ULONG cchName,
				     ULONG *pchName);

	/* slots 43..52 */
	HRESULT (*EnumModuleRefs)(IMetaDataImport *self, HCORENUM *phEnum, mdModuleRef *rModuleRefs, ULONG cmax,
				  ULONG *pcModuleRefs);
	HRESULT (*GetTypeSpecFromToken)(IMetaDataImport *self, mdTypeSpec typespec, PCCOR_SIGNATURE *ppvSig,
					ULONG *pcbSig);
	HRESULT (*GetNameFromToken)(IMetaDataImport *self, mdToken tk, MDUTF8CSTR *pszUtf8NamePtr);
	HRESULT (*EnumUnresolvedMethods)(IMetaDataImport *self, HCORENUM *phEnum, mdToken *rMethods, ULONG cMax,
					 ULONG *pcTokens);
	HRESULT (*GetUserString)(IMetaDataImport *self, mdString stk, LPWSTR szString, ULONG cchString,
				 ULONG *pchString);
	HRESULT (*GetPinvokeMap)(IMetaDataImport *self, mdToken tk, DWORD *pdwMappingFlags, LPWSTR szImportName,
				 ULONG cchImportName, ULONG *pchImportName, mdModuleRef *pmrImportDLL);
	HRESULT (*EnumSignatures)(IMetaDataImport *self, HCORENUM *phEnum, mdSignature *rSignatures, ULONG cmax,
				  ULONG *pcSignatures);
	HRESULT (*EnumTypeSpecs)(IMetaDataImport *self, HCORENUM *phEnum, mdTypeSpec *rTypeSpecs, ULONG cmax,
				 ULONG *pcTypeSpecs);
	HRESULT (*EnumUserStrings)(IMetaDataImport *self, HCORENUM *phEnum, mdString *rStrings, ULONG cmax,
				   ULONG *pcStrings);
	HRESULT (*GetParamForMethodIndex)(IMetaDataImport *self, mdMethodDef md, ULONG ulParamSeq, mdParamDef *ppd);

	/* slots 53..64 */
	HRESULT (*EnumCustomAttributes)(IMetaDataImport *self, HCORENUM *phEnum, mdToken tk, mdToken tkType,
					mdCustomAttribute *rCustomAttributes, ULONG cMax, ULONG *pcCustomAttributes);
	HRESULT (*GetCustomAttributeProps)(IMetaDataImport *self, mdCustomAttribute cv, mdToken *ptkObj,
					   mdToken *ptkType, const void **ppBlob, ULONG *pcbSize);
	HRESULT (*FindTypeRef)(IMetaDataImport *self, mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef *ptr);
	HRESULT (*GetMemberProps)(IMetaDataImport *self, mdToken mb, mdTypeDef *pClass, LPWSTR szMember,
				  ULONG cchMember, ULONG *pchMember, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
				  ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags, DWORD *pdwCPlusTypeFlag,
				  UVCP_CONSTANT *ppValue, ULONG *pcchValue);
	HRESULT (*GetFieldProps)(IMetaDataImport *self, mdFieldDef mb, mdTypeDef *pClass, LPWSTR szField,
				 ULONG cchField, ULONG *pchField, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
				 ULONG *pcbSigBlob, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue,
				 ULONG *pcchValue);
	/* szProperty is an output buffer despite LPCWSTR (as declared in cor.h). */
	HRESULT (*GetPropertyProps)(IMetaDataImport *self, mdProperty prop, mdTypeDef *pClass, LPCWSTR szProperty,
				    ULONG cchProperty, ULONG *pchProperty, DWORD *pdwPropFlags,
				    PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, DWORD *pdwCPlusTypeFlag,
				    UVCP_CONSTANT *ppDefaultValue, ULONG *pcchDefaultValue, mdMethodDef *pmdSetter,
				    mdMethodDef *pmdGetter, mdMethodDef *rmdOtherMethod, ULONG cMax,
				    ULONG *pcOtherMethod);
	HRESULT (*GetParamProps)(IMetaDataImport *self, mdParamDef tk, mdMethodDef *pmd, ULONG *pulSequence,
				 LPWSTR szName, ULONG cchName, ULONG *pchName, DWORD *pdwAttr,
				 DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, ULONG *pcchValue);
	HRESULT (*GetCustomAttributeByName)(IMetaDataImport *self, mdToken tkObj, LPCWSTR szName,
					    const void **ppData, ULONG *pcbData);
	BOOL (*IsValidToken)(IMetaDataImport *self, mdToken tk);
	HRESULT (*GetNestedClassProps)(IMetaDataImport *self, mdTypeDef tdNestedClass, mdTypeDef *ptdEnclosingClass);
	HRESULT (*GetNativeCallConvFromSig)(IMetaDataImport *self, const void *pvSig, ULONG cbSig, ULONG *pCallConv);
	HRESULT (*IsGlobal)(IMetaDataImport *self, mdToken pd, int *pbGlobal);
};
struct IMetaDataImport {
	const struct IMetaDataImportVtbl *vtbl;
};

#define CORPROF_METADATAIMPORT_SLOT_COUNT 65
#define CORPROF_MDI_SLOT(name) (offsetof(struct IMetaDataImportVtbl, name) / sizeof(void *))
_Static_assert(CORPROF_MDI_SLOT(CloseEnum) == 3, "IMetaDataImport: CloseEnum");
_Static_assert(CORPROF_MDI_SLOT(GetTypeDefProps) == 12, "IMetaDataImport: GetTypeDefProps");
_Static_assert(CORPROF_MDI_SLOT(GetMethodProps) == 30, "IMetaDataImport: GetMethodProps");
_Static_assert(CORPROF_MDI_SLOT(GetSigFromToken) == 41, "IMetaDataImport: GetSigFromToken");
_Static_assert(CORPROF_MDI_SLOT(GetCustomAttributeByName) == 60, "IMetaDataImport: GetCustomAttributeByName");
_Static_assert(CORPROF_MDI_SLOT(GetNestedClassProps) == 62, "IMetaDataImport: GetNestedClassProps");
_Static_assert(sizeof(struct IMetaDataImportVtbl) == CORPROF_METADATAIMPORT_SLOT_COUNT * sizeof(void *),
	       "IMetaDataImport: 65 slots");

#endif /* CLRSCOPE_CORPROF_H */
