#include "agent/unwind/unwind.h"

#include <string.h>

#include "agent/unwind/x64frame.h"
#ifdef CLRSCOPE_WALK_PROBE
#include "agent/unwind/walkprobe.h"
#endif

#define EPILOG_BYTES 48

/* The word at addr in the copy, if the copy holds it (no log). */
static bool peek_word(const struct stack_copy *s, uint64_t addr, uint64_t *v)
{
	if (s->len < 8 || addr < s->base || addr - s->base > (uint64_t)s->len - 8 || (addr & 7))
		return false;
	memcpy(v, s->bytes + (addr - s->base), 8); /* a copy of this x86-64 process's own stack */
	return true;
}

static bool read_word(const struct stack_copy *s, uint64_t addr, uint64_t *v)
{
	if (!peek_word(s, addr, v)) {
		if (s->past_end && addr >= s->base && !(addr & 7))
			*s->past_end = true; /* the stack goes on beyond the copy */
		return false;
	}
	if (s->log && s->log->n < UNWIND_WORDS_MAX) {
		s->log->addr[s->log->n] = addr;
		s->log->value[s->log->n++] = *v;
	} else if (s->log) {
		s->log->overflow = true;
	}
	return true;
}

/* A frame; run: a native one joins the run of native frames before it
 * (one 0 per run), else it is a frame of its own. */
static void emit(struct unwind_out *out, FunctionID fn, uint64_t addr, bool run)
{
	if (fn == 0 && run && out->n && out->frames[out->n - 1] == 0)
		return;
	if (out->n == out->cap) {
		out->verdict = UNWIND_TRUNCATED;
		return;
	}
	if (out->addrs)
		out->addrs[out->n] = addr; /* a native run's: its innermost frame's */
	out->frames[out->n++] = fn;
}

struct frame {
	uint64_t ip, sp, fp;
	bool fp_live;      /* fp is still the starting register's value, read from no stack slot */
	bool used_live_fp; /* ... and the walk has used it */
	bool fp_unknown;   /* ... which was never read */
};

/* The frame pointer, for an address: noted when it is the starting
 * register's value. */
static uint64_t use_fp(struct frame *f, uint64_t fp, bool live)
{
	f->used_live_fp |= live;
	return fp;
}

/* The caller of a frame stopped inside an epilog: run the rest of it. */
static bool step_epilog(const struct unwind_source *src, const struct stack_copy *s, const struct code_body *b,
			struct frame *f)
{
	uint8_t code[EPILOG_BYTES];
	uint64_t left = b->end - f->ip;
	size_t len = left < sizeof code ? (size_t)left : sizeof code;
	struct x64_epilog e;
	if (!len || src->read(f->ip, code, len) != 0 || !x64_decode_epilog(code, len, &e))
		return false;
	uint64_t sp = f->sp, fp = f->fp;
	bool live = f->fp_live;
	for (uint8_t i = 0; i < e.nops; i++) {
		switch (e.op[i].kind) {
		case X64_ADD_RSP:
			sp += (uint64_t)(int64_t)e.op[i].imm;
			break;
		case X64_LEA_RSP_FP:
			sp = use_fp(f, fp, live) + (uint64_t)(int64_t)e.op[i].imm;
			break;
		case X64_MOV_RSP_FP:
			sp = use_fp(f, fp, live);
			break;
		case X64_POP_FP:
			if (!read_word(s, sp, &fp))
				return false;
			live = false;
			sp += 8;
			break;
		case X64_POP_OTHER:
			sp += 8;
			break;
		default: /* ret, or a tail call: the return address is at sp */
			if (!read_word(s, sp, &f->ip))
				return false;
			f->sp = sp + 8;
			f->fp = fp;
			f->fp_live = live;
			return true;
		}
	}
	return false;
}

/* The caller of a managed frame from its body's prolog: where the frame
 * started (from rbp when the body set it, else from rsp), the return
 * address there, the caller's rbp where the prolog saved it.  An OSR body
 * sits on its method's Tier0 frame, whose caller is the real one. */
static bool step_managed(const struct unwind_source *src, const struct stack_copy *s, const struct code_body *b,
			 bool interrupted, struct frame *f)
{
	uint64_t off = f->ip - b->start;
	const struct x64_frame_state *body = &b->prolog.step[b->prolog.nsteps - 1];
	if (!interrupted && off < body->end)
		return false; /* a call inside a prolog: not a shape the JIT writes */
	const struct x64_frame_state *st = x64_prolog_state_at(&b->prolog, (uint32_t)off);
	uint64_t entry = st->fp_set ? use_fp(f, f->fp, f->fp_live) - (uint64_t)(int64_t)st->fp
				    : f->sp - (uint64_t)(int64_t)st->sp;
	uint64_t caller_fp = f->fp;
	bool caller_live = f->fp_live && !st->fp_saved;
	if (st->fp_saved && !read_word(s, entry + (uint64_t)(int64_t)st->fp_slot, &caller_fp))
		return false;
	if (b->prolog.osr) {
		/* entry holds the stale return address of the Tier0 code's call
		 * to the patchpoint helper: it names the Tier0 body */
		uint64_t stale;
		if (!read_word(s, entry, &stale))
			return false;
		struct code_at t0 = src->at(stale - 1, false);
		if (t0.fn != b->fn || !t0.body || !t0.body->decoded || t0.body->prolog.osr)
			return false;
		const struct x64_frame_state *t0s = &t0.body->prolog.step[t0.body->prolog.nsteps - 1];
		if (!t0s->fp_saved)
			return false;
		uint64_t t0_entry = entry + 8 - (uint64_t)(int64_t)t0s->sp;
		if (!read_word(s, t0_entry + (uint64_t)(int64_t)t0s->fp_slot, &caller_fp))
			return false;
		caller_live = false;
		entry = t0_entry;
	}
	if (!read_word(s, entry, &f->ip))
		return false;
	f->sp = entry + 8;
	f->fp = caller_fp;
	f->fp_live = caller_live;
	return true;
}

/* A native frame: by its module's unwind rule where it has one (exact,
 * frame pointer or not); else, for an interrupted leaf called straight
 * from managed code with nothing pushed yet, the return address at the
 * stack pointer; else its frame pointer. */
static bool step_native(const struct unwind_source *src, const struct stack_copy *s, const struct code_at *at,
			bool interrupted, struct frame *f, bool *guessed)
{
	*guessed = false;
	if (at->native_known && at->rule.outermost) {
		f->ip = 0; /* the thread's first frame: the walk is complete */
		return true;
	}
	if (at->native_known) {
		uint64_t cfa;
		int32_t from_sp;
		if (at->rule.cfa_reg == EH_REG_RBP && f->fp_live && !interrupted && !at->rule.cfa_deref &&
		    src->call_cfa(f->ip - 1, &at->rule, &from_sp)) {
			/* the frame placed by its code, from rsp: the walk does not
			 * depend on the live rbp here (which it has, to check) */
			cfa = f->sp + (uint64_t)(int64_t)from_sp;
			if (!f->fp_unknown && f->fp + (uint64_t)(int64_t)at->rule.cfa_off != cfa) {
				src->call_cfa_refuted(f->ip - 1);
				cfa = use_fp(f, f->fp, true) + (uint64_t)(int64_t)at->rule.cfa_off;
			}
		} else {
			cfa = (at->rule.cfa_reg == EH_REG_RSP ? f->sp : use_fp(f, f->fp, f->fp_live)) +
			      (uint64_t)(int64_t)at->rule.cfa_off;
		}
		if (at->rule.cfa_deref) {
			if (!read_word(s, cfa, &cfa))
				return false;
			cfa += (uint64_t)(int64_t)at->rule.cfa_add;
		}
		uint64_t ret, fp = f->fp, caller_sp = cfa;
		if (at->hijack_pushes) {
			/* the runtime's hijack stub, entered by a return: its
			 * caller's frame starts 8 below the CFA its rule gives, and
			 * the return address is the slot its worker fills (until
			 * then it holds rax, as the last push does) */
			uint64_t saved_rax;
			caller_sp = cfa - 8;
			if (interrupted || !read_word(s, caller_sp - 8, &ret) ||
			    !read_word(s, caller_sp - 8 * (uint64_t)at->hijack_pushes, &saved_rax) || ret == saved_rax)
				return false;
		} else if (!read_word(s, cfa + (uint64_t)(int64_t)at->rule.ra_off, &ret)) {
			return false;
		}
		/* a slot below the stack pointer was popped: in an epilog after
		 * "pop %rbp" (or leave) compilers move the CFA back but leave rbp's
		 * rule as it was, and the register holds the caller's value again */
		uint64_t rbp_slot = cfa + (uint64_t)(int64_t)at->rule.rbp_off;
		bool rbp_in_slot = at->rule.rbp_saved && rbp_slot >= f->sp;
		if (rbp_in_slot && !read_word(s, rbp_slot, &fp))
			return false;
		f->ip = ret;
		f->sp = caller_sp;
		f->fp = fp;
		f->fp_live &= !rbp_in_slot;
		return true;
	}
	*guessed = true;
	if (interrupted) {
		uint64_t ret;
		if (read_word(s, f->sp, &ret) && ret > 8) {
			struct code_at caller = src->at(ret - 1, false);
			int code = caller.fn && caller.body ? src->code_facts(ret) : -1;
			if (code > 0 && (code & CODE_FOLLOWS_CALL)) {
				f->ip = ret;
				f->sp += 8;
				return true;
			}
		}
	}
	uint64_t at_fp = use_fp(f, f->fp, f->fp_live);
	if (at_fp < f->sp || (at_fp & 7))
		return false;
	uint64_t next_fp, ret;
	if (!read_word(s, at_fp, &next_fp) || !read_word(s, at_fp + 8, &ret))
		return false;
	f->sp = at_fp + 16;
	f->fp = next_fp;
	f->fp_live = false;
	f->ip = ret;
	return true;
}

static struct unwind_counts counts;

struct unwind_counts unwind_counts(void)
{
	return counts;
}

/* The seams of the walk being made (see struct unwind_trail). */
struct seams {
	struct unwind_seam at[UNWIND_TRAIL_FRAMES];
	uint32_t n;
	bool lost;     /* more frames than fit: no trail of this walk */
	bool past_end; /* it ended at a frame whose words lie beyond the copy: nor
			  then (a kernel sample's 32 KiB end such walks early, as if
			  at their root; a trail would carry that into other walks) */
};

static void add_seam(struct seams *w, const struct unwind_seam *seam)
{
	if (w->n == UNWIND_TRAIL_FRAMES)
		w->lost = true;
	else
		w->at[w->n++] = *seam;
}

/* The trail's seam where frame f starts (same instruction, same stack
 * pointer), else t->nseams. */
static uint32_t seam_at(const struct unwind_trail *t, const struct frame *f)
{
	uint32_t lo = 0, hi = t->nseams; /* seams by stack pointer, ascending */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->seam[mid].sp < f->sp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nseams && t->seam[lo].sp == f->sp && t->seam[lo].ip == f->ip ? lo : t->nseams;
}

/* The rest of the walk from frame f, from the thread's last one, when
 * that reached f in a managed frame and read the same words from there on
 * (appended to the copy's log, as if read); false when it cannot be had. */
static bool graft(const struct unwind_trail *t, const struct frame *f, const struct stack_copy *s,
		  struct unwind_out *out, struct seams *w)
{
	uint32_t lo = seam_at(t, f);
	if (lo == t->nseams)
		return false;
	const struct unwind_seam *b = &t->seam[lo];
	if (!b->managed || b->fp != f->fp || b->fp_live != f->fp_live ||
	    (f->fp_live && b->fp_unknown != f->fp_unknown) || out->n + (t->n - b->n) > out->cap ||
	    s->log->n + (t->nwords - b->words) > UNWIND_WORDS_MAX)
		return false;
	for (uint32_t k = b->words; k < t->nwords; k++) {
		uint64_t v;
		if (!peek_word(s, t->waddr[k], &v) || v != t->wvalue[k])
			return false;
	}
	uint32_t head_n = out->n, head_words = s->log->n;
	counts.grafts++;
	counts.grafted_frames += t->n - b->n;
	for (uint32_t k = b->words; k < t->nwords; k++) {
		s->log->addr[s->log->n] = t->waddr[k];
		s->log->value[s->log->n++] = t->wvalue[k];
	}
	memcpy(out->frames + out->n, t->frames + b->n, (t->n - b->n) * sizeof *out->frames);
	memcpy(out->addrs + out->n, t->addrs + b->n, (t->n - b->n) * sizeof *out->addrs);
	out->n += t->n - b->n;
	if (b->guessed_after && out->verdict == UNWIND_EXACT)
		out->verdict = UNWIND_NATIVE;
	out->live_fp |= b->live_after;
	if (!out->first_managed_sp)
		out->first_managed_sp = f->sp;
	out->root = t->root;
	/* its seams from here on, where this walk has them */
	for (uint32_t k = lo; k < t->nseams; k++) {
		struct unwind_seam seam = t->seam[k];
		seam.n = (uint16_t)(seam.n - b->n + head_n);
		seam.words = (uint16_t)(seam.words - b->words + head_words);
		add_seam(w, &seam);
	}
	return true;
}

/* A native frame whose caller's words lie beyond the copy: the walk ends
 * there, at its root or not.  The thread's last complete walk says which
 * when it met this frame at the same place (a return address at the same
 * stack address: the frames beyond are where they were, unless this one
 * returned and was called again at that very depth) and found only native
 * frames beyond it up to the thread's first: the frames that started the
 * thread, or a host's, which stay while it runs.  Those fall into the
 * [native] run this frame began. */
static bool rest_from_trail(const struct unwind_trail *t, const struct frame *f, struct unwind_out *out)
{
	uint32_t k = seam_at(t, f);
	if (k == t->nseams || t->seam[k].managed || !t->root)
		return false;
	for (uint32_t i = t->seam[k].n; i < t->n; i++)
		if (t->frames[i])
			return false;
	if (t->seam[k].n < t->n)
		emit(out, 0, t->addrs[t->seam[k].n], true);
	out->root = true;
	counts.rests++;
	return true;
}

/* The walk itself; its seams go to w (with trail: grafted where it can). */
static void walk(const struct unwind_source *src, const struct unwind_regs *r, bool leaf_interrupted,
		 const struct stack_copy *s, struct unwind_out *out, const struct unwind_trail *trail, struct seams *w)
{
	struct frame f = {r->ip, r->sp, r->fp, true, false, r->fp_unknown};
	bool interrupted = leaf_interrupted, caller_managed = false;
	uint32_t own = 0; /* seams of this walk's own steps (the grafted ones follow) */
	for (;;) {
		/* a return address points after its call: name the call */
		uint64_t addr = interrupted ? f.ip : f.ip - 1;
		if (!interrupted && trail && graft(trail, &f, s, out, w))
			break;
		struct code_at at = src->at(addr, interrupted);
		if (!at.code && (!interrupted || at.unknown)) {
			/* a return address outside all code: a managed frame was
			 * placed wrongly, or native frames ended (the root); or one
			 * that cannot be told apart just now */
			if (caller_managed || at.unknown)
				out->verdict = UNWIND_BROKEN;
			break;
		}
		caller_managed = at.fn != 0;
		struct unwind_seam seam = {f.ip, f.sp, f.fp, f.fp_live, f.fp_unknown, at.fn != 0, false, false,
					   (uint16_t)out->n, (uint16_t)(s->log ? s->log->n : 0)};
		/* the runtime's unwinder reports no frame for its own stubs
		 * (code outside every module), but one for the leaf or the
		 * root, whatever runs there; the native frames from the leaf to
		 * the first managed one are each a frame (a runtime helper
		 * between a method and the libc function it called), those
		 * beyond one per run */
		if (at.fn || at.in_module || interrupted)
			emit(out, at.fn, addr, out->first_managed_sp != 0);
		if (out->verdict == UNWIND_TRUNCATED)
			break;
		struct frame next = f;
		next.used_live_fp = false; /* this step's own use */
		*s->past_end = false;
		bool ok, guessed = false;
		if (at.fn) {
			if (!out->first_managed_sp)
				out->first_managed_sp = f.sp;
			if (!at.body || !at.body->decoded)
				ok = false;
			else if (interrupted && at.epilog)
				ok = step_epilog(src, s, at.body, &next);
			else
				ok = step_managed(src, s, at.body, interrupted, &next);
		} else {
			ok = step_native(src, s, &at, interrupted, &next, &guessed);
			if (ok && guessed && out->verdict == UNWIND_EXACT)
				out->verdict = UNWIND_NATIVE;
		}
		out->live_fp |= next.used_live_fp;
		seam.guessed_after = ok && guessed;
		seam.live_after = next.used_live_fp;
		add_seam(w, &seam);
		own++;
		if (!ok) {
			/* native frames whose frame pointers end (the outermost
			 * frame's is 0) are the root, as the runtime reports it:
			 * one native frame; a managed frame that cannot be placed
			 * leaves the walk incomplete */
			if (at.fn) {
				out->verdict = UNWIND_BROKEN;
			} else if (*s->past_end && !guessed) {
				/* by its unwind rule, the caller lies beyond the copy
				 * (a frame pointer chain's end is the root's, as above) */
				out->past_end = !(trail && rest_from_trail(trail, &f, out));
			}
			w->past_end |= *s->past_end;
			break;
		}
		if (next.ip == 0) {
			/* the outermost frame; the thread's first one when its
			 * unwind table says so (not a frame pointer chain's 0) */
			out->root = !at.fn && at.native_known && at.rule.outermost;
			break;
		}
		if (next.sp <= f.sp) {
			out->verdict = UNWIND_BROKEN;
			break;
		}
		if (next.sp >= s->base + s->len) {
			emit(out, src->at(next.ip - 1, false).fn, next.ip - 1, out->first_managed_sp != 0);
			out->verdict = UNWIND_TRUNCATED;
			break;
		}
		f = next;
		interrupted = false;
	}
	/* what each of its own seams leads to: its own step's, and the rest's */
	for (uint32_t k = own < w->n ? own : w->n; k-- > 0;) {
		if (k + 1 < w->n) {
			w->at[k].guessed_after |= w->at[k + 1].guessed_after;
			w->at[k].live_after |= w->at[k + 1].live_after;
		}
	}
}

#ifdef CLRSCOPE_WALK_PROBE
/* Makes one kind of memory the walk touches cold (walkprobe.h): the
 * code map's entries and bodies for every frame it stepped or grafted. */
static void probe_evict(const struct unwind_source *src, enum walkprobe_replay kind, const struct stack_copy *s,
			const struct unwind_trail *trail, const struct seams *w, bool leaf_interrupted)
{
	switch (kind) {
	case PROBE_ADDRESSES:
	case PROBE_BODIES:
		for (uint32_t k = 0; src->probe_flush && k < w->n; k++)
			src->probe_flush(k == 0 && leaf_interrupted ? w->at[k].ip : w->at[k].ip - 1, kind == PROBE_BODIES);
		break;
	case PROBE_TRAIL:
		if (trail)
			walkprobe_flush(trail, sizeof *trail);
		walkprobe_flush(w, sizeof *w);
		if (s->log)
			walkprobe_flush(s->log, sizeof *s->log);
		break;
	case PROBE_STACK:
		walkprobe_flush(s->bytes, s->len);
		break;
	default:
		walkprobe_evict(kind);
		break;
	}
}

/* The walk just made, made again: warm, then after each kind of memory
 * was made cold (each replay after a warm one); last as it was made, so
 * that what the caller keeps (out, the log, the seams) is its own. */
static void probe_replays(const struct unwind_source *src, const struct unwind_regs *r, bool leaf_interrupted,
			  const struct stack_copy *s, struct unwind_out *out, const struct unwind_out *initial,
			  uint32_t log_n, const struct unwind_trail *trail, struct seams *w)
{
	static FunctionID frames[1024];
	static uint64_t addrs[1024];
	struct unwind_counts made = counts;
	for (int kind = PROBE_WARM; kind < PROBE_REPLAYS; kind++) {
		uint64_t ns = 0;
		for (int run = 0; run < 2; run++) {
			if (run == 1) /* (by the seams of the warm run) */
				probe_evict(src, (enum walkprobe_replay)kind, s, trail, w, leaf_interrupted);
			struct unwind_out o = *initial;
			o.frames = frames;
			o.addrs = initial->addrs ? addrs : NULL;
			o.cap = initial->cap < 1024 ? initial->cap : 1024;
			if (s->log)
				s->log->n = log_n;
			w->n = 0;
			w->lost = w->past_end = false;
			uint64_t t0 = agent_mono_ns();
			walk(src, r, leaf_interrupted, s, &o, trail, w);
			ns = agent_mono_ns() - t0;
		}
		walkprobe_replayed((enum walkprobe_replay)kind, ns);
	}
	counts = made;
	*out = *initial;
	if (s->log)
		s->log->n = log_n;
	w->n = 0;
	w->lost = w->past_end = false;
	walk(src, r, leaf_interrupted, s, out, trail, w);
}
#endif

void unwind_walk(const struct unwind_source *src, const struct unwind_regs *r, bool leaf_interrupted,
		 const struct stack_copy *s, struct unwind_out *out, struct unwind_trail *trail)
{
	out->n = 0;
	out->verdict = UNWIND_EXACT;
	out->first_managed_sp = 0;
	out->root = false;
	out->live_fp = false;
	out->past_end = false;
	static struct word_log scratch; /* the words, when the caller keeps none (sampler thread only) */
	bool past_end = false;
	struct stack_copy copy = *s;
	copy.past_end = &past_end;
	if (!out->addrs)
		trail = NULL; /* a trail needs every frame's address */
	bool graftable = trail && trail->epoch == src->walk_epoch() && trail->dynamic == src->dynamic_epoch();
	if (trail && !copy.log) {
		scratch.n = 0;
		scratch.overflow = false;
		copy.log = &scratch;
	}
	static struct seams w;
	w.n = 0;
	w.lost = false;
	w.past_end = false;
#ifdef CLRSCOPE_WALK_PROBE
	struct unwind_out initial = *out;
	uint32_t log_n = copy.log ? copy.log->n : 0;
	uint64_t probe_t0 = agent_mono_ns();
#endif
	walk(src, r, leaf_interrupted, &copy, out, graftable ? trail : NULL, &w);
#ifdef CLRSCOPE_WALK_PROBE
	if (trail && walkprobe_due(agent_mono_ns() - probe_t0))
		probe_replays(src, r, leaf_interrupted, &copy, out, &initial, log_n, graftable ? trail : NULL, &w);
#endif
	counts.walks++;
	counts.frames += out->n;
	if (!trail || w.lost || w.past_end || copy.log->overflow || out->n > UNWIND_TRAIL_FRAMES ||
	    (out->verdict != UNWIND_EXACT && out->verdict != UNWIND_NATIVE))
		return;
	/* this walk is the thread's trail now */
	trail->epoch = src->walk_epoch();
	trail->dynamic = src->dynamic_epoch();
	trail->nseams = w.n;
	memcpy(trail->seam, w.at, w.n * sizeof *w.at);
	trail->n = out->n;
	memcpy(trail->frames, out->frames, out->n * sizeof *out->frames);
	memcpy(trail->addrs, out->addrs, out->n * sizeof *out->addrs);
	trail->nwords = copy.log->n;
	memcpy(trail->waddr, copy.log->addr, copy.log->n * sizeof *copy.log->addr);
	memcpy(trail->wvalue, copy.log->value, copy.log->n * sizeof *copy.log->value);
	trail->root = out->root;
}
