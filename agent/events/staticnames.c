#include "agent/events/staticnames.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/symbols/symbols.h"
#include "common/utf16.h"

#define FD_STATIC 0x10  /* CorFieldAttr fdStatic */
#define FD_LITERAL 0x40 /* fdLiteral: a constant, no storage */
#define FIELD_NAME_MAX 256
#define BATCH 256

/* The names found so far, by address; "" for an address searched for in
 * vain while `modules` modules were loaded (searched again after a load). */
static struct {
	uint64_t *slots;
	char **types;
	size_t n, cap;
	ULONG modules;
} known;

static const char *known_type(uint64_t slot)
{
	for (size_t i = 0; i < known.n; i++)
		if (known.slots[i] == slot)
			return known.types[i];
	return NULL;
}

static void remember(uint64_t slot, const char *type)
{
	if (known.n == known.cap) {
		size_t slots_cap = known.cap, types_cap = known.cap;
		if (!agent_grow(&known.slots, &slots_cap, known.n + 1, sizeof *known.slots, 64) ||
		    !agent_grow(&known.types, &types_cap, known.n + 1, sizeof *known.types, 64))
			return;
		known.cap = slots_cap;
	}
	char *copy = strdup(type);
	if (!copy)
		return;
	known.slots[known.n] = slot;
	known.types[known.n++] = copy;
}

void sn_forget(void)
{
	for (size_t i = 0; i < known.n; i++)
		free(known.types[i]);
	free(known.slots);
	free(known.types);
	known.slots = NULL;
	known.types = NULL;
	known.n = known.cap = 0;
}

/* Whether a field's signature can hold an object: the runtime reports
 * statics of class and value types only, never of primitives. */
static bool holds_objects(const uint8_t *sig, ULONG len)
{
	if (len < 2 || sig[0] != 0x06) /* IMAGE_CEE_CS_CALLCONV_FIELD */
		return false;
	uint8_t t = sig[1];
	return !(t >= 0x02 && t <= 0x0d) && t != 0x18 && t != 0x19; /* bool .. double, IntPtr, UIntPtr */
}

struct search {
	struct sn_static *v;
	size_t n;
	size_t left; /* statics still without a type */
};

/* A static field of a class: when its address is one looked for, the
 * class names it. */
static void try_field(struct search *s, ModuleID mod, AppDomainID ad, mdTypeDef td, ClassID *cls,
		      mdFieldDef fd, const char *name)
{
	ICorProfilerInfo10 *info = g_agent.info;
	bool wanted = false;
	for (size_t i = 0; i < s->n && !wanted; i++)
		wanted = !s->v[i].type[0] && !strcmp(s->v[i].field, name);
	if (!wanted)
		return;
	if (!*cls && FAILED(info->vtbl->GetClassFromTokenAndTypeArgs(info, mod, td, 0, NULL, cls)))
		*cls = (ClassID)-1; /* generic: no statics of its own */
	if (*cls == (ClassID)-1)
		return;
	COR_PRF_STATIC_TYPE kind = 0;
	void *addr = NULL;
	if (FAILED(info->vtbl->GetStaticFieldInfo(info, *cls, fd, &kind)) || !(kind & COR_PRF_FIELD_APP_DOMAIN_STATIC) ||
	    FAILED(info->vtbl->GetAppDomainStaticAddress(info, *cls, fd, ad, &addr)) || !addr)
		return;
	uint64_t at = (uint64_t)(uintptr_t)addr;
	for (size_t i = 0; i < s->n; i++) {
		struct sn_static *st = &s->v[i];
		if (st->type[0] || (st->slot != at && st->object + sizeof(void *) != at))
			continue;
		sym_class_name_uncached(*cls, st->type, sizeof st->type);
		remember(st->slot, st->type);
		s->left--;
	}
}

static void search_class(struct search *s, IMetaDataImport *md, ModuleID mod, AppDomainID ad, mdTypeDef td)
{
	HCORENUM e = NULL;
	mdFieldDef fields[BATCH];
	ULONG got = 0;
	ClassID cls = 0;
	while (s->left && SUCCEEDED(md->vtbl->EnumFields(md, &e, td, fields, BATCH, &got)) && got) {
		for (ULONG i = 0; i < got && s->left; i++) {
			WCHAR w[FIELD_NAME_MAX];
			ULONG wlen = 0;
			DWORD attr = 0;
			PCCOR_SIGNATURE sig = NULL;
			ULONG siglen = 0;
			if (FAILED(md->vtbl->GetFieldProps(md, fields[i], NULL, w, FIELD_NAME_MAX, &wlen, &attr, &sig,
							   &siglen, NULL, NULL, NULL)) ||
			    (attr & (FD_STATIC | FD_LITERAL)) != FD_STATIC || !holds_objects(sig, siglen))
				continue;
			char name[FIELD_NAME_MAX * 3];
			cs_utf16_to_utf8((const uint16_t *)w, wlen && !w[wlen - 1] ? wlen - 1 : wlen, name, sizeof name);
			try_field(s, mod, ad, td, &cls, fields[i], name);
		}
	}
	if (e)
		md->vtbl->CloseEnum(md, e);
}

static void search_module(struct search *s, ModuleID mod)
{
	ICorProfilerInfo10 *info = g_agent.info;
	AppDomainID ad = 0;
	ULONG32 nad = 0;
	if (FAILED(info->vtbl->GetAppDomainsContainingModule(info, mod, 1, &nad, &ad)) || !nad)
		return;
	IUnknown *unk = NULL;
	IMetaDataImport *md = NULL;
	if (FAILED(info->vtbl->GetModuleMetaData(info, mod, ofRead, &IID_IMetaDataImport, &unk)) || !unk)
		return;
	if (FAILED(unk->vtbl->QueryInterface(unk, &IID_IMetaDataImport, (void **)&md)))
		md = NULL;
	unk->vtbl->Release(unk);
	if (!md)
		return;
	HCORENUM e = NULL;
	mdTypeDef tds[BATCH];
	ULONG got = 0;
	while (s->left && SUCCEEDED(md->vtbl->EnumTypeDefs(md, &e, tds, BATCH, &got)) && got)
		for (ULONG i = 0; i < got && s->left; i++)
			search_class(s, md, mod, ad, tds[i]);
	if (e)
		md->vtbl->CloseEnum(md, e);
	md->vtbl->Release(md);
}

/* Drops the addresses searched for in vain. */
static void forget_misses(void)
{
	size_t kept = 0;
	for (size_t i = 0; i < known.n; i++) {
		if (!known.types[i][0]) {
			free(known.types[i]);
			continue;
		}
		known.slots[kept] = known.slots[i];
		known.types[kept++] = known.types[i];
	}
	known.n = kept;
}

void sn_resolve(struct sn_static *v, size_t n)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ICorProfilerModuleEnum *mods = NULL;
	ULONG modules = 0;
	if (FAILED(info->vtbl->EnumModules(info, &mods)) || !mods)
		mods = NULL;
	else if (FAILED(mods->vtbl->GetCount(mods, &modules)))
		modules = 0;
	if (modules != known.modules)
		forget_misses();
	known.modules = modules;
	struct search s = {v, n, 0};
	for (size_t i = 0; i < n; i++) {
		const char *type = known_type(v[i].slot);
		snprintf(v[i].type, sizeof v[i].type, "%s", type ? type : "");
		s.left += !type;
	}
	ModuleID mod;
	ULONG fetched = 0;
	while (mods && s.left && mods->vtbl->Next(mods, 1, &mod, &fetched) == S_OK && fetched == 1)
		search_module(&s, mod);
	if (mods)
		mods->vtbl->Release(mods);
	for (size_t i = 0; i < n; i++)
		if (!v[i].type[0] && !known_type(v[i].slot))
			remember(v[i].slot, "");
}
