/* The session log's record kinds and their fields: the one table of the
 * format.  common/records.h and records.c expand it into the structs, the
 * encoders and the decoders, common/recordinfo.c into a description that
 * printers and tests read (unit.schema checks clrscope-session(5) against
 * it).  The tables are X-macros, as agent/corprof.h's vtable is.
 *
 * CS_RECORD_KINDS(X): X(NAME, type, reader, head, entry, doc)
 *   NAME    CS_REC_NAME, the kind's name in clrscope-session(5)
 *   type    its record type number in the framing (common/logfmt.h)
 *   reader  OWN: read by its layouts' own functions (cs_hello_decode,
 *           cs_next_frame_def, ...); EVENT: by cs_event_decode into a
 *           struct cs_event, written by cs_event_encode
 *   head    the layout of the payload's start, once (none: no head)
 *   entry   the layout repeated from there to the end of the payload
 *           (none: a payload is its head alone)
 *
 * CS_LAYOUTS(L): L(layout, type, code, api, check)
 *   layout  its fields are CS_FIELDS_layout
 *   type    the C struct it is read into and written from
 *   code    STRUCT: the struct and its code are made from the fields;
 *           CODE: its code is (the struct is records.h's, shared or with
 *           more members); HAND: the fields describe the bytes, and the
 *           struct and code are records.c's own (shapes a table would
 *           contort: runs of counted values, values derived from others)
 *   api     how records.h offers it, besides cs_LAYOUT_encode:
 *           PAYLOAD  bool cs_LAYOUT_decode(payload, len, struct *)
 *           LIST     bool cs_next_LAYOUT(struct cs_list *, struct *)
 *           IN_HEAD  bool cs_LAYOUT_decode(struct cs_in *, struct *)
 *           IN_LIST  bool cs_next_LAYOUT(struct cs_in *, struct *)
 *           INNER    neither: records.c wraps the code (no encoder either)
 *   check   a function of the struct that is false for damage
 *           (always_valid: none)
 *
 * CS_FIELDS_layout(F): F(presence, wire, name, member, doc), in order
 *   presence ALWAYS:   in every payload;
 *            OPTIONAL: may be missing from the end of a payload (its
 *                      writer predates it): read as 0 or empty.  It starts
 *                      a group, there whole or not at all;
 *            WITH:     in the group of the OPTIONAL field before it;
 *            EACH:     repeated, as many times as the count before says
 *                      (the EACH fields after a count repeat together)
 *   wire     u8, u32, u64 (little-endian), varint (LEB128), v32 (a
 *            varint of at most 32 bits: more is damage), str (varint
 *            length, then UTF-8), count (a varint: how many times the
 *            EACH fields after it come)
 *   name     the field's name in clrscope-session(5)
 *   member   the struct member it is read into (_: none)
 *   doc      one line; the manual page says the rest
 *
 * The format only grows: a new kind takes a new number; a new field goes
 * at the end of a head layout as OPTIONAL (or WITH); a reader ignores kinds
 * and trailing bytes it does not know.  A list's entry layout cannot grow
 * (the next entry follows it): that takes a new kind. */
#ifndef CLRSCOPE_SCHEMA_H
#define CLRSCOPE_SCHEMA_H

#define CS_RECORD_KINDS(X) \
	X(HELLO,         1, OWN,   hello,           none,         "the agent introduces itself; first record of a process") \
	X(THREAD,        2, OWN,   thread,          none,         "a managed thread's reference number") \
	X(FRAMES,        3, OWN,   none,            frame_def,    "frame id -> function name and module") \
	X(STACKS,        4, OWN,   none,            stack_def,    "stack id -> parent stack id and the frame it adds") \
	X(SAMPLES,       5, OWN,   none,            tick,         "sampler ticks: which thread was in which stack") \
	X(STATUS,        6, OWN,   status,          none,         "the agent's counters, totals since it started") \
	X(MESSAGE,       7, OWN,   message,         none,         "a line of text from the agent") \
	X(END,           8, OWN,   end,             none,         "the agent stopped writing; nothing follows") \
	X(DIALS,         9, OWN,   dials_ack,       none,         "the agent's answer to new dials") \
	X(GC,           10, OWN,   gc,              none,         "a garbage collection") \
	X(EXCEPTION,    11, EVENT, exception,       none,         "an exception was thrown") \
	X(CATCH,        12, EVENT, catch,           none,         "a catch clause was entered") \
	X(JIT,          13, EVENT, jit,             none,         "a method was compiled") \
	X(MODULE,       14, EVENT, module,          none,         "a module or an assembly was loaded") \
	X(THREAD_EVENT, 15, EVENT, thread_event,    none,         "a managed thread started, ended or was named") \
	X(CALLS,        16, OWN,   calls_head,      call_entry,   "call counts and times of instrumented functions") \
	X(HEAP,         17, OWN,   heap_head,       heap_entry,   "a heap snapshot, or a part of one: objects by type") \
	X(ALLOCS,       18, OWN,   allocs_head,     alloc_entry,  "allocations by type so far") \
	X(CONTENTION,   19, EVENT, contention,      none,         "a thread waited for a lock") \
	X(WAIT,         20, EVENT, wait,            none,         "a thread waited on a wait handle") \
	X(THREADPOOL,   21, EVENT, threadpool,      none,         "a thread pool worker came or went, or the pool changed size") \
	X(ALLOC_SAMPLE, 22, EVENT, alloc_sample,    none,         "the runtime sampled an allocation") \
	X(HOLDS,        23, OWN,   none,            hold,         "runs of samples of threads that kept their stack") \
	X(FRAME_CODE,   24, OWN,   none,            frame_code,   "frame id -> method token and assembly, for source lines") \
	X(STACK_IL,     25, OWN,   none,            stack_il,     "stack id -> IL offset of its innermost frame, for source lines") \
	X(TICKS,        26, OWN,   none,            tick_state,   "SAMPLES with each sample on or off the CPU") \
	X(THREAD_CPU,   27, OWN,   thread_cpu_head, thread_cpu,   "threads' CPU time so far") \
	X(CODE_PATH,    28, OWN,   none,            code_path,    "the paths FRAME_CODE and NATIVE_FRAME refer to") \
	X(NATIVE_FRAME, 29, OWN,   none,            native_frame, "frame id -> native function: its file and address there") \
	X(CPU_OWED,     30, OWN,   none,            cpu_owed,     "on-CPU samples for CPU time the ticks' moments missed") \
	X(LOGICAL,      31, OWN,   none,            logical,      "stack id of a logical (async) stack -> the physical stack it was taken in") \
	X(AWAITS,       32, OWN,   awaits_head,     await_group,  "an awaits snapshot: the async chains waiting, grouped by logical stack") \
	X(HEAP_NODES,   40, OWN,   graph_part,      graph_node,   "a heap snapshot's live objects, in the order the GC walked them") \
	X(HEAP_EDGES,   41, OWN,   graph_part,      graph_edge,   "the references of those objects, object after object") \
	X(HEAP_ROOTS,   42, OWN,   graph_part,      graph_root,   "a heap snapshot's roots: stacks, handles, the finalization queue") \
	X(HEAP_STATICS, 43, OWN,   graph_part,      graph_static, "the static fields that hold a heap snapshot's objects") \
	X(HEAP_METHODS, 44, OWN,   graph_part,      graph_method, "the methods whose frames hold a heap snapshot's stack roots") \
	X(HEAP_TYPES,   45, OWN,   graph_part,      graph_type,   "the types of a heap snapshot's objects, by number") \
	X(HEAP_GRAPH,   46, OWN,   graph_head,      none,         "a heap snapshot's graph was written: its totals")

#define CS_LAYOUTS(L) \
	L(hello,           cs_hello,           STRUCT, PAYLOAD, always_valid) \
	L(thread,          cs_thread,          STRUCT, PAYLOAD, always_valid) \
	L(frame_def,       cs_frame_def,       STRUCT, LIST,    always_valid) \
	L(stack_def,       cs_stack_def,       STRUCT, LIST,    always_valid) \
	L(tick,            cs_tick,            HAND,   INNER,   always_valid) \
	L(tick_state,      cs_tick,            HAND,   INNER,   always_valid) \
	L(status,          cs_status,          STRUCT, PAYLOAD, always_valid) \
	L(message,         cs_message,         CODE,   PAYLOAD, always_valid) \
	L(end,             cs_message,         HAND,   INNER,   always_valid) \
	L(dials_ack,       cs_dials_ack,       CODE,   INNER,   always_valid) \
	L(gc,              cs_gc,              HAND,   INNER,   always_valid) \
	L(exception,       cs_event,           CODE,   INNER,   always_valid) \
	L(catch,           cs_event,           CODE,   INNER,   always_valid) \
	L(jit,             cs_event,           CODE,   INNER,   always_valid) \
	L(module,          cs_event,           CODE,   INNER,   always_valid) \
	L(thread_event,    cs_event,           CODE,   INNER,   always_valid) \
	L(calls_head,      cs_calls_head,      STRUCT, IN_HEAD, always_valid) \
	L(call_entry,      cs_call_entry,      STRUCT, IN_LIST, always_valid) \
	L(heap_head,       cs_heap_head,       HAND,   INNER,   always_valid) \
	L(heap_entry,      cs_type_count,      CODE,   IN_LIST, always_valid) \
	L(allocs_head,     cs_allocs_head,     STRUCT, IN_HEAD, always_valid) \
	L(alloc_entry,     cs_type_count,      CODE,   IN_LIST, always_valid) \
	L(contention,      cs_event,           CODE,   INNER,   always_valid) \
	L(wait,            cs_event,           CODE,   INNER,   always_valid) \
	L(threadpool,      cs_event,           CODE,   INNER,   always_valid) \
	L(alloc_sample,    cs_event,           CODE,   INNER,   always_valid) \
	L(hold,            cs_hold,            STRUCT, LIST,    hold_valid) \
	L(frame_code,      cs_frame_code,      STRUCT, LIST,    always_valid) \
	L(stack_il,        cs_stack_il,        STRUCT, LIST,    always_valid) \
	L(thread_cpu_head, cs_thread_cpu_head, STRUCT, INNER,   always_valid) \
	L(thread_cpu,      cs_thread_cpu,      STRUCT, LIST,    always_valid) \
	L(code_path,       cs_code_path,       STRUCT, LIST,    always_valid) \
	L(native_frame,    cs_native_frame,    STRUCT, LIST,    always_valid) \
	L(cpu_owed,        cs_cpu_owed,        STRUCT, LIST,    cpu_owed_valid) \
	L(logical,         cs_logical,         STRUCT, LIST,    always_valid) \
	L(awaits_head,     cs_awaits_head,     STRUCT, IN_HEAD, always_valid) \
	L(await_group,     cs_await_group,     STRUCT, IN_LIST, always_valid) \
	L(graph_part,      cs_graph_part,      STRUCT, IN_HEAD, always_valid) \
	L(graph_node,      cs_graph_node,      HAND,   INNER,   always_valid) \
	L(graph_edge,      cs_graph_edge,      HAND,   INNER,   always_valid) \
	L(graph_root,      cs_graph_root,      HAND,   INNER,   always_valid) \
	L(graph_static,    cs_graph_static,    STRUCT, IN_LIST, always_valid) \
	L(graph_method,    cs_graph_method,    STRUCT, IN_LIST, always_valid) \
	L(graph_type,      cs_graph_type,      STRUCT, IN_LIST, always_valid) \
	L(graph_head,      cs_graph_head,      STRUCT, PAYLOAD, always_valid)

#define CS_FIELDS_hello(F) \
	F(ALWAYS,   u32,    pid,             pid,             "the process id") \
	F(ALWAYS,   u32,    ppid,            ppid,            "its parent's process id") \
	F(ALWAYS,   u64,    start_unix_ns,   start_unix_ns,   "wall clock when the agent started, ns since the epoch: time 0 of the log") \
	F(ALWAYS,   u8,     load_mode,       load_mode,       "cs_load_mode: loaded at startup or attached") \
	F(ALWAYS,   u32,    rate_hz,         rate_hz,         "the sampling rate at the start") \
	F(ALWAYS,   str,    agent_version,   agent_version,   "the agent's version") \
	F(ALWAYS,   str,    runtime_version, runtime_version, "the runtime's version") \
	F(ALWAYS,   str,    command_line,    command_line,    "the process's arguments, joined by spaces") \
	F(OPTIONAL, str,    control,         control,         "the named semaphore that announces dials changes (empty: none)") \
	F(WITH,     v32,    events,          events,          "the CS_EV_* kinds of runtime events recorded from the start") \
	F(OPTIONAL, v32,    features,        features,        "cs_feature bits: what the process was started with") \
	F(WITH,     str,    patterns,        patterns,        "the instrumented functions' patterns, one a line")

#define CS_FIELDS_thread(F) \
	F(ALWAYS,   varint, thread_ref,      ref,             "the number samples refer to the thread by") \
	F(ALWAYS,   u64,    runtime_id,      runtime_id,      "the runtime's ThreadID") \
	F(ALWAYS,   u32,    os_tid,          os_tid,          "the kernel's thread id (0: not known)") \
	F(ALWAYS,   str,    name,            name,            "the thread's managed name (may be empty)") \
	F(OPTIONAL, str,    os_name,         os_name,         "the kernel's name of the thread, its comm (empty: not read)")

#define CS_FIELDS_frame_def(F) \
	F(ALWAYS,   varint, frame_id,        id,              "the frame id (below CS_FRAME_FIRST_FUNCTION: a pseudo-frame)") \
	F(ALWAYS,   str,    name,            name,            "the function's name, Namespace.Type+Nested.Method") \
	F(ALWAYS,   str,    module,          module,          "its module's file name (empty for pseudo-frames)")

#define CS_FIELDS_stack_def(F) \
	F(ALWAYS,   varint, stack_id,        id,              "the stack id: a whole path, root first") \
	F(ALWAYS,   varint, parent_stack_id, parent,          "the stack it extends (0: a root)") \
	F(ALWAYS,   varint, frame_id,        frame,           "the frame it adds to its parent")

#define CS_FIELDS_tick(F) \
	F(ALWAYS,   varint, time_delta_us,   time_us,         "us since the tick before in the record (the first: since the start)") \
	F(ALWAYS,   varint, suspend_ns,      suspend_ns,      "how long the runtime stayed suspended for this tick") \
	F(ALWAYS,   count,  count,           count,           "the samples that follow, one per thread sampled") \
	F(EACH,     varint, thread_ref,      _,               "the thread sampled") \
	F(EACH,     varint, stack_id,        _,               "the stack it was in")

#define CS_FIELDS_tick_state(F) \
	F(ALWAYS,   varint, time_delta_us,   time_us,         "us since the tick before in the record (the first: since the start)") \
	F(ALWAYS,   varint, suspend_ns,      suspend_ns,      "how long the runtime stayed suspended for this tick") \
	F(ALWAYS,   count,  count,           count,           "the samples that follow, one per thread sampled") \
	F(EACH,     varint, thread_ref,      _,               "the thread sampled") \
	F(EACH,     varint, stack_state,     _,               "stack_id << 1 | off_cpu (cs_tick_stack_state)")

#define CS_FIELDS_status(F) \
	F(ALWAYS,   u64,    time_us,          time_us,          "when the counters were read") \
	F(ALWAYS,   varint, dropped_records,  dropped_records,  "records lost: the buffer was full or a write failed") \
	F(ALWAYS,   varint, dropped_bytes,    dropped_bytes,    "their bytes") \
	F(ALWAYS,   varint, write_errors,     write_errors,     "failed segment writes") \
	F(ALWAYS,   varint, ticks,            ticks,            "ticks taken") \
	F(ALWAYS,   varint, samples,          samples,          "samples taken") \
	F(ALWAYS,   varint, suspend_total_ns, suspend_total_ns, "time the runtime spent suspended by the sampler") \
	F(ALWAYS,   varint, suspend_max_ns,   suspend_max_ns,   "the longest suspension") \
	F(ALWAYS,   varint, truncated_stacks, truncated_stacks, "samples whose stack was cut at the depth limit") \
	F(ALWAYS,   varint, failed_walks,     failed_walks,     "walks refused, captures without a managed frame: threads not sampled") \
	F(OPTIONAL, varint, deferred_walks,   deferred_walks,   "walks put off: the suspensions had used their share of time") \
	F(OPTIONAL, varint, stack_checks,     stack_checks,     "fast walks repeated exactly, kept stacks compared with a capture") \
	F(OPTIONAL, varint, stack_mismatches, stack_mismatches, "of those, how many differed") \
	F(OPTIONAL, varint, signals,          signals,          "signals sent to threads that ran, for their stacks") \
	F(OPTIONAL, varint, parked_kept,      parked_kept,      "samples of threads found parked where their capture was: no signal") \
	F(OPTIONAL, varint, sampler_cpu_ns,   sampler_cpu_ns,   "the CPU time of the agent's sampler thread") \
	F(OPTIONAL, varint, writer_cpu_ns,    writer_cpu_ns,    "the CPU time of its log writer thread") \
	F(OPTIONAL, varint, handler_cpu_ns,   handler_cpu_ns,   "the CPU time of its signal handler in the program's threads") \
	F(OPTIONAL, varint, unwind_ns,        unwind_ns,        "sampler time unwinding the handlers' copies") \
	F(OPTIONAL, varint, survey_ns,        survey_ns,        "sampler time reading CPU clocks, asking parked threads where they are") \
	F(OPTIONAL, varint, signal_ns,        signal_ns,        "sampler time choosing the threads to signal, arming their timers") \
	F(OPTIONAL, varint, record_ns,        record_ns,        "sampler time naming frames, interning stacks, logging samples") \
	F(OPTIONAL, varint, signals_waiting,  signals_waiting,  "signals whose capture found the thread waiting in a system call") \
	F(OPTIONAL, varint, waiting_read,     waiting_read,     "waiting threads' stacks read where they waited (no signal)") \
	F(OPTIONAL, varint, kernel_samples,   kernel_samples,   "the kernel sampler's samples of running threads") \
	F(OPTIONAL, varint, kernel_lost,      kernel_lost,      "samples the kernel could not write (a full ring)") \
	F(OPTIONAL, varint, beyond_copy,      beyond_copy,      "captures whose stack went on past the copy: walked exactly or cut") \
	F(OPTIONAL, varint, async_resolved,   async_resolved,   "samples in a resumed async method given their logical callers") \
	F(WITH,     varint, async_unresolved, async_unresolved, "... whose logical callers could not be known: an [await ?] boundary") \
	F(WITH,     varint, async_ns,         async_ns,         "sampler time finding the logical callers")

#define CS_FIELDS_message(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   u8,     level,           level,           "cs_level: information, warning, error") \
	F(ALWAYS,   str,    text,            text,            "the line")

#define CS_FIELDS_end(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   u8,     reason,          level,           "cs_end_reason: shutdown, detach, fatal error, size cap") \
	F(ALWAYS,   str,    text,            text,            "the reason in words")

#define CS_FIELDS_dials_ack(F) \
	F(ALWAYS,   u64,    time_us,         time_us,           "") \
	F(ALWAYS,   varint, generation,      generation,        "the generation of the dials file answered") \
	F(ALWAYS,   u8,     status,          status,            "cs_dials_status: applied, rejected, applied in part") \
	F(ALWAYS,   str,    effective,       effective,         "the dials in effect, in dials syntax on one line (cs_dials_summary)") \
	F(ALWAYS,   str,    error,           error,             "why they were rejected, or what could not be done") \
	F(OPTIONAL, u8,     sampling,        dials.sampling,    "the dials in effect, as fields: 1 sampling, 0 paused") \
	F(WITH,     u8,     sampler,         dials.sampler,     "cs_sampler") \
	F(WITH,     v32,    rate_hz,         dials.rate_hz,     "samples per second") \
	F(WITH,     v32,    events,          dials.events,      "CS_EV_* bits: the kinds of runtime events recorded") \
	F(WITH,     v32,    flush_ms,        dials.flush_ms,    "how often the log is written out") \
	F(WITH,     u8,     instrument,      dials.instrument,  "1: calls of instrumented functions recorded") \
	F(WITH,     u8,     allocations,     dials.allocations, "1: allocations counted") \
	F(WITH,     v32,    snapshots,       dials.snapshots,   "heap snapshots asked for so far") \
	F(WITH,     v32,    validate,        dials.validate,    "every Nth fast walk repeated exactly (0: never)") \
	F(WITH,     u8,     detach,          dials.detach,      "1: detaching") \
	F(OPTIONAL, v32,    await_snapshots, dials.await_snapshots, "awaits snapshots asked for so far")

#define CS_FIELDS_gc(F) \
	F(ALWAYS,   u64,    start_us,        start_us,        "when the collection started") \
	F(ALWAYS,   varint, duration_us,     duration_us,     "from its start to its end") \
	F(ALWAYS,   varint, pause_us,        pause_us,        "the runtime's suspension for it (0: not known)") \
	F(ALWAYS,   u8,     generation,      generation,      "the oldest generation collected") \
	F(ALWAYS,   u8,     reason,          reason,          "cs_gc_reason: induced or other") \
	F(ALWAYS,   count,  count,           ngens,           "heap sizes that follow: CS_GC_GENERATIONS, or 0 (not known)") \
	F(EACH,     varint, bytes,           gen_bytes,       "a generation's size after the GC: 0, 1, 2, large, pinned objects") \
	F(OPTIONAL, v32,    cause,           cause,           "the runtime's gc_reason + 1 (0: not known)") \
	F(WITH,     u8,     type,            type,            "cs_gc_type: blocking, background, foreground") \
	F(WITH,     varint, promoted_bytes,  promoted_bytes,  "bytes that survived it") \
	F(WITH,     varint, pinned_objects,  pinned_objects,  "pinned objects it found")

#define CS_FIELDS_exception(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the throwing thread") \
	F(ALWAYS,   varint, stack_id,        id,              "its stack as it threw (0: not walked)") \
	F(ALWAYS,   str,    type,            text,            "the exception's type") \
	F(OPTIONAL, str,    message,         message,         "its message (empty: not known)")

#define CS_FIELDS_catch(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the thread; the exception is its latest EXCEPTION") \
	F(ALWAYS,   varint, frame_id,        id,              "the method that catches it")

#define CS_FIELDS_jit(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "when the compilation ended") \
	F(ALWAYS,   varint, frame_id,        id,              "the method") \
	F(ALWAYS,   varint, duration_us,     duration_us,     "how long it took")

#define CS_FIELDS_module(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   u8,     kind,            kind,            "cs_module_kind: module or assembly") \
	F(ALWAYS,   str,    name,            text,            "a module's path, an assembly's name")

#define CS_FIELDS_thread_event(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   u8,     kind,            kind,            "cs_thread_event_kind: created, destroyed, named") \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the thread") \
	F(ALWAYS,   u32,    os_tid,          os_tid,          "the kernel's thread id (0: not known)") \
	F(ALWAYS,   str,    name,            text,            "the new name (named); empty otherwise")

#define CS_FIELDS_calls_head(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   u8,     recording,       recording,       "1 while calls are recorded, 0 while the instrument dial pauses it") \
	F(ALWAYS,   varint, hooked,          hooked,          "functions given hooks so far") \
	F(ALWAYS,   varint, examined,        examined,        "functions the runtime asked about") \
	F(ALWAYS,   varint, repaired,        repaired,        "frames ended for a leave that never came") \
	F(ALWAYS,   varint, too_deep,        too_deep,        "calls past the shadow stack's depth: counted, not timed")

#define CS_FIELDS_call_entry(F) \
	F(ALWAYS,   varint, frame_id,        frame,           "the function") \
	F(ALWAYS,   varint, calls,           calls,           "its calls since the start") \
	F(ALWAYS,   varint, inclusive_ns,    inclusive_ns,    "time from entry to return, outermost activations") \
	F(ALWAYS,   varint, exclusive_ns,    exclusive_ns,    "the same, less the instrumented functions it called")

#define CS_FIELDS_heap_head(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "when the walk was asked for") \
	F(ALWAYS,   varint, seq,             seq,             "the snapshot's number, from 1") \
	F(ALWAYS,   varint, part,            part,            "this record's place among the snapshot's records, from 0") \
	F(ALWAYS,   varint, parts,           parts,           "how many records the snapshot takes") \
	F(ALWAYS,   varint, pause_us,        pause_us,        "how long the program was paused") \
	F(ALWAYS,   varint, objects,         objects,         "the objects") \
	F(ALWAYS,   varint, bytes,           bytes,           "their bytes") \
	F(ALWAYS,   varint, types,           types,           "the entries of all parts together") \
	F(ALWAYS,   count,  nroots,          _,               "root counts that follow: CS_ROOT_KINDS, or 0 (walked suspended)") \
	F(EACH,     varint, roots,           roots,           "the roots of a cs_root_kind")

#define CS_FIELDS_heap_entry(F) \
	F(ALWAYS,   str,    type,            type,            "the type's name") \
	F(ALWAYS,   varint, count,           count,           "its objects") \
	F(ALWAYS,   varint, bytes,           bytes,           "their bytes")

#define CS_FIELDS_allocs_head(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   varint, gcs,             gcs,             "garbage collections so far") \
	F(ALWAYS,   u8,     recording,       recording,       "0 while the allocations dial pauses counting")

#define CS_FIELDS_alloc_entry(F) \
	F(ALWAYS,   varint, type_id,         type_id,         "the agent's number for the type, from 1") \
	F(ALWAYS,   str,    type,            type,            "the type's name") \
	F(ALWAYS,   varint, count,           count,           "its allocations since the start") \
	F(ALWAYS,   varint, bytes,           bytes,           "their bytes")

#define CS_FIELDS_contention(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "when the wait ended") \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the waiting thread") \
	F(ALWAYS,   varint, stack_id,        id,              "its stack (0: not walked)") \
	F(ALWAYS,   varint, wait_ns,         wait_ns,         "how long it waited")

#define CS_FIELDS_wait(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "when the wait ended") \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the waiting thread") \
	F(ALWAYS,   varint, stack_id,        id,              "its stack (0: not walked)") \
	F(ALWAYS,   varint, wait_ns,         wait_ns,         "how long it waited") \
	F(ALWAYS,   u8,     kind,            kind,            "the runtime's WaitSource: 0 a wait handle, 1 Monitor.Wait")

#define CS_FIELDS_threadpool(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   u8,     kind,            kind,            "cs_threadpool_kind: worker started, stopped, pool adjusted") \
	F(ALWAYS,   varint, workers,         workers,         "active workers after a start or stop; the new count after a change") \
	F(ALWAYS,   u8,     reason,          reason,          "a change's ThreadAdjustmentReason (cs_pool_reason_name)")

#define CS_FIELDS_alloc_sample(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "") \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the allocating thread") \
	F(ALWAYS,   varint, stack_id,        id,              "its stack (0: not walked)") \
	F(ALWAYS,   varint, size,            size,            "the object's bytes") \
	F(ALWAYS,   varint, weight,          weight,          "the bytes of allocation the sample stands for") \
	F(ALWAYS,   str,    type,            text,            "the object's type")

#define CS_FIELDS_hold(F) \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the thread") \
	F(ALWAYS,   varint, stack_id,        stack_id,        "the stack it kept") \
	F(ALWAYS,   varint, first_us,        first_us,        "the run's first sample") \
	F(ALWAYS,   varint, period_us,       period_us,       "the time between its samples (1 to CS_HOLD_MAX_PERIOD_US)") \
	F(ALWAYS,   varint, count,           count,           "its samples (1 to CS_HOLD_MAX_COUNT)")

#define CS_FIELDS_frame_code(F) \
	F(ALWAYS,   varint, frame_id,        frame,           "a managed frame") \
	F(ALWAYS,   v32,    method_token,    token,           "its MethodDef token") \
	F(ALWAYS,   varint, path_ref,        path_ref,        "its assembly (CODE_PATH)")

#define CS_FIELDS_stack_il(F) \
	F(ALWAYS,   varint, stack_id,        stack,           "a stack") \
	F(ALWAYS,   v32,    il_offset,       il_offset,       "the IL offset its innermost frame was at (CS_IL_EPILOG: the epilog)")

#define CS_FIELDS_thread_cpu_head(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "when the clocks were read")

#define CS_FIELDS_thread_cpu(F) \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "a thread that ran since the record before") \
	F(ALWAYS,   varint, cpu_ns,          cpu_ns,          "its CPU time since it started")

#define CS_FIELDS_code_path(F) \
	F(ALWAYS,   varint, path_ref,        ref,             "its reference, from 1") \
	F(ALWAYS,   str,    path,            path,            "the absolute path of the assembly or module, or linux-vdso.so.1 for the vDSO")

#define CS_FIELDS_native_frame(F) \
	F(ALWAYS,   varint, frame_id,        frame,           "a frame whose FRAMES name is [native]") \
	F(ALWAYS,   varint, path_ref,        path_ref,        "its module (CODE_PATH)") \
	F(ALWAYS,   varint, file_address,    file_address,    "the function's start as the file's symbols give it") \
	F(ALWAYS,   str,    build_id,        build_id,        "the loaded module's GNU build id, raw (empty: none)")

#define CS_FIELDS_cpu_owed(F) \
	F(ALWAYS,   varint, thread_ref,      thread_ref,      "the thread a tick found running") \
	F(ALWAYS,   varint, stack_id,        stack_id,        "the stack it was running in") \
	F(ALWAYS,   varint, time_us,         time_us,         "that tick's time") \
	F(ALWAYS,   varint, count,           count,           "periods of CPU time more that sample stands for (1 to CS_CPU_OWED_MAX_COUNT)")

/* The heap graph: one snapshot is the HEAP_* records of one seq.  Addresses
 * in the delta-coded lists are zigzag varints of a difference in units of
 * 8 bytes (the heap's alignment), from 0 at the start of each record. */
#define CS_FIELDS_graph_part(F) \
	F(ALWAYS,   varint, seq,             seq,             "the snapshot (HEAP's seq)") \
	F(ALWAYS,   varint, first,           first,           "the index of the record's first entry among the snapshot's entries of its kind")

#define CS_FIELDS_graph_node(F) \
	F(ALWAYS,   varint, address_delta,   address,         "zigzag((address - the address before) / 8)") \
	F(ALWAYS,   varint, type,            type,            "its type's number (HEAP_TYPES)") \
	F(ALWAYS,   varint, size,            size,            "its size in bytes, not rounded") \
	F(ALWAYS,   varint, edges,           edges,           "its references: the next this many HEAP_EDGES entries")

#define CS_FIELDS_graph_edge(F) \
	F(ALWAYS,   varint, target_delta,    target,          "zigzag((the referenced object - the target before) / 8)")

#define CS_FIELDS_graph_root(F) \
	F(ALWAYS,   u8,     kind,            kind,            "cs_graph_root_kind: stack, finalization queue, handle, other, dependent handle") \
	F(ALWAYS,   u8,     flags,           flags,           "cs_graph_root_flag bits: pinning, weak, interior, ref-counted") \
	F(ALWAYS,   varint, address_delta,   address,         "zigzag((the object - the object of the root before) / 8)") \
	F(ALWAYS,   varint, root_id,         root_id,         "a stack root's method (HEAP_METHODS), a handle's address, or 0") \
	F(ALWAYS,   varint, value_delta,     value,           "a dependent handle's value: zigzag((value - object) / 8); 0 otherwise")

#define CS_FIELDS_graph_static(F) \
	F(ALWAYS,   varint, slot,            slot,            "the static field's address") \
	F(ALWAYS,   varint, address,         address,         "the object it holds") \
	F(ALWAYS,   u8,     flags,           flags,           "1: thread-local") \
	F(ALWAYS,   str,    type,            type,            "the class that declares it (empty: not found)") \
	F(ALWAYS,   str,    field,           field,           "the field's name")

#define CS_FIELDS_graph_method(F) \
	F(ALWAYS,   varint, method_id,       id,              "a stack root's root_id") \
	F(ALWAYS,   str,    name,            name,            "the method, Namespace.Type.Method")

#define CS_FIELDS_graph_type(F) \
	F(ALWAYS,   varint, type,            type,            "the type's number in HEAP_NODES") \
	F(ALWAYS,   str,    name,            name,            "its name, as HEAP's")

#define CS_FIELDS_graph_head(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "when the snapshot was asked for") \
	F(ALWAYS,   varint, seq,             seq,             "the snapshot (HEAP's seq)") \
	F(ALWAYS,   varint, pause_us,        pause_us,        "the forced collection with its walk") \
	F(ALWAYS,   varint, nodes,           nodes,           "HEAP_NODES entries written") \
	F(ALWAYS,   varint, edges,           edges,           "HEAP_EDGES entries") \
	F(ALWAYS,   varint, roots,           roots,           "HEAP_ROOTS entries") \
	F(ALWAYS,   varint, statics,         statics,         "HEAP_STATICS entries") \
	F(ALWAYS,   varint, methods,         methods,         "HEAP_METHODS entries") \
	F(ALWAYS,   varint, types,           types,           "HEAP_TYPES entries") \
	F(ALWAYS,   varint, lost,            lost,            "events of the walk not written (0: the graph is whole)")

#define CS_FIELDS_logical(F) \
	F(ALWAYS,   varint, stack_id,        stack,           "a stack whose path has an [await] or [await ?] frame: a logical stack") \
	F(ALWAYS,   varint, physical_id,     physical,        "the stack the thread was in (its frames as its own stack holds them)")

/* An awaits snapshot: each async method suspended at an await that no
 * other one awaits (the innermost of its chain), counted under its chain's
 * logical stack, outermost method first. */
#define CS_FIELDS_awaits_head(F) \
	F(ALWAYS,   u64,    time_us,         time_us,         "when the snapshot was asked for") \
	F(ALWAYS,   varint, seq,             seq,             "the snapshot's number, from 1") \
	F(ALWAYS,   varint, pause_us,        pause_us,        "how long the program stood still for the heap walk") \
	F(ALWAYS,   varint, suspended,       suspended,       "async methods found suspended at an await") \
	F(ALWAYS,   varint, chains,          chains,          "of those, the innermost of a chain: the counts' sum") \
	F(ALWAYS,   varint, unresolved,      unresolved,      "chains whose awaiting methods could not all be known: they begin with [await ?]") \
	F(ALWAYS,   varint, lost,            lost,            "chains not counted: the walk's room or the record's was full") \
	F(ALWAYS,   u8,     walk,            walk,            "cs_heap_walk: the live objects of a forced GC, or all objects in a suspension")

#define CS_FIELDS_await_group(F) \
	F(ALWAYS,   varint, stack_id,        stack,           "the chain: its outermost method at the root, the innermost at the leaf") \
	F(ALWAYS,   varint, count,           count,           "how many chains have it")

/* A kind without a head or without entries names this layout. */
#define CS_FIELDS_none(F)

#endif
