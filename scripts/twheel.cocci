// SPDX-License-Identifier: GPL-2.0
/// Convert a file from the kernel's struct timer_list to twheel's
/// timer_list-shaped layer, include/twheel_timer.h.
///
/// What it changes, when the whole file can be converted:
///   struct timer_list (variables, members, parameters, callbacks, sizeof)
///                      -> struct twheel_timer
///   DEFINE_TIMER(n, f) -> DEFINE_TWHEEL_TIMER(n, f)
///   timer_setup        -> twheel_timer_setup (flags kept: 0, TIMER_PINNED,
///                         TIMER_DEFERRABLE, the kernel's own constants)
///   from_timer, timer_container_of          -> twheel_from_timer
///   mod_timer, mod_timer_pending, timer_reduce, add_timer, add_timer_on,
///   add_timer_local, add_timer_global, timer_pending, timer_shutdown,
///   timer_shutdown_sync, timer_setup_on_stack
///                                           -> the same name after twheel_
///   del_timer, timer_delete                 -> twheel_timer_delete
///   del_timer_sync, timer_delete_sync, del_singleshot_timer_sync
///                                           -> twheel_timer_delete_sync
///   try_to_del_timer_sync, timer_delete_sync_try
///                                           -> twheel_timer_delete_sync_try
///   destroy_timer_on_stack, timer_destroy_on_stack
///                                           -> twheel_timer_destroy_on_stack
/// Both spellings of each call are converted: 6.1's and 6.12's (from_timer,
/// del_timer, try_to_del_timer_sync, ...) and 7.2's (timer_container_of,
/// timer_delete, timer_delete_sync_try, ...).
/// and adds #include <twheel_timer.h> after the last #include <linux/...>,
/// keeping <linux/timer.h>, where the flags come from.  Field accesses
/// (t->expires, t->function, t->flags) stay: struct twheel_timer has
/// those fields.
///
/// What it refuses.  A file with any of these is left as it is, whole,
/// since converting the rest would not compile, or would hand a struct
/// twheel_timer to code that expects a struct timer_list; each is printed
/// on stderr as "FILE:LINE: refused: WHY":
///   - TIMER_IRQSAFE: twheel_timer has no irq-safe mode;
///   - what timer_setup() and timer_setup_on_stack() wrap
///     (timer_init_key() and its kin, init_timer_key() before 7.2), and
///     the old init_timer()/setup_timer() family: twheel_timer.h has no
///     counterpart;
///   - a call above whose timer the file does not show to be a struct
///     timer_list: a member of a struct defined in another file (a kernel
///     or driver header), which this file cannot convert, or a macro's
///     argument;
///   - a struct timer_list * (variable, member, parameter of a function of
///     this file, return value) set to anything but NULL, another such
///     pointer, a call of a function of this file returning one, or the
///     address of a struct timer_list this file converts:
///     &fd->watchdog of a struct from a header would not compile once the
///     pointer is retyped, and a call's result or a void * may point to a
///     struct timer_list of another file;
///   - a cast to struct timer_list *, for the same reason: retyped, it
///     would hand whatever it points to on as a struct twheel_timer;
///   - from_timer(), timer_container_of() or container_of() on anything
///     but a struct timer_list member of a struct defined in this file;
///   - a struct timer_list handed to a function neither above nor defined
///     in this file (sk_reset_timer(), say);
///   - a member of struct timer_list that struct twheel_timer lacks
///     (t->entry; it has expires, function and flags);
///   - a callback of timer_setup() or DEFINE_TIMER() not defined in this
///     file;
///   - what other files, still on timer_list, share with this one: an
///     extern struct timer_list, a struct timer_list or DEFINE_TIMER() at
///     file scope that is not static, a function taking a struct
///     timer_list * that is not static.
/// Calls through function pointers are taken as they are: their types
/// come from this file, which is converted as a whole.
///
/// The file's headers are not read (--no-includes, below): a struct from
/// a header counts as foreign whatever the include path, and the file
/// alone decides.  Run it with scripts/convert.sh, which also greps the
/// result for what is left of the API (code Coccinelle could not parse, a
/// macro whose body is not one expression or statement) and then leaves
/// the file as it was too; it also tells spatch of the <linux/cleanup.h>
/// block macros, and realigns continuation lines.  By hand:
/// spatch --sp-file scripts/twheel.cocci FILE.c
#spatch --no-includes

@initialize:python@
@@
import sys

# The functions defined in the file, its static and extern declarations
# (by place), and the last line of an #include <linux/...> in each file.
functions = set()
statics = set()
last_include = {}


def where(p):
	return (p[0].file, p[0].line, p[0].column)


def file_scope_public(p):
	"""A declaration at p is at file scope, and neither static nor extern."""
	return p[0].current_element not in functions and where(p) not in statics


NOT_MEMBER = "not a struct timer_list member of a struct defined in this file"
NOT_TIMER = "what is not a struct timer_list of this file (a member of" \
	" a struct from a header? a call's result? a void *?)"
FOREIGN = "is handed a struct timer_list: not in twheel_timer.h, nor defined" \
	" in this file"


def refuse(p, why):
	sys.stderr.write("%s:%s: refused: %s\n" % (p[0].file, p[0].line, why))

// ------------------------------------------------------------------------
// What the file has.  These rules change nothing; they run before any
// rule that does, so that types and lines are those of the original.

// DEFINE_TIMER()'s timer, whose type Coccinelle does not see.
@deftimer@
declarer name DEFINE_TIMER;
identifier n, fn;
@@
DEFINE_TIMER(n, fn);

// The struct timer_list members of the structs defined here: in their
// definitions, and in uses &e->fld whose type Coccinelle knows, which it
// can only from a definition in this file (static struct s { ... } *x;).
@member@
identifier s, fld;
expression E;
@@
struct s { ...
(
	struct timer_list fld;
|
	struct timer_list fld[E];
)
	... };

@memberuse@
identifier s, fld;
struct s *e;
struct timer_list *t;
@@
(
	t
&
	&e->fld
)

// The functions defined here: they take whatever the file converts.
@localfn@
identifier fn;
type R;
@@
R fn(...) { ... }

@script:python@
fn << localfn.fn;
@@
functions.add(str(fn))

@localcall@
identifier localfn.fn;
position p;
@@
fn@p(...)

// ------------------------------------------------------------------------
// What cannot be converted.

@irqsafe@
position p;
@@
TIMER_IRQSAFE@p

@script:python@
p << irqsafe.p;
@@
refuse(p, "TIMER_IRQSAFE: twheel_timer has no irq-safe mode")

@unsupported@
identifier f = {timer_init_key, timer_init_key_on_stack, __timer_init,
	__timer_init_on_stack, init_timer_key, init_timer_on_stack_key,
	__init_timer, __init_timer_on_stack, init_timer, init_timer_on_stack,
	init_timer_deferrable, init_timer_pinned, init_timer_pinned_deferrable,
	setup_timer, setup_timer_on_stack, setup_deferrable_timer,
	setup_deferrable_timer_on_stack, setup_pinned_timer,
	setup_pinned_deferrable_timer, __setup_timer, __setup_timer_on_stack,
	__TIMER_INITIALIZER, TIMER_INITIALIZER, TIMER_DEFERRED_INITIALIZER,
	TIMER_PINNED_INITIALIZER, TIMER_PINNED_DEFERRED_INITIALIZER};
position p;
@@
f@p(...)

@script:python@
p << unsupported.p;
f << unsupported.f;
@@
refuse(p, "%s(): twheel_timer.h has no counterpart" % f)

// A call converted below whose timer is a struct timer_list this file
// shows; the rest have a timer from elsewhere.
@typed@
identifier f = {timer_setup, timer_setup_on_stack,
	destroy_timer_on_stack, timer_destroy_on_stack, mod_timer,
	mod_timer_pending, timer_reduce, add_timer, add_timer_local,
	add_timer_global, add_timer_on, del_timer, timer_delete, del_timer_sync,
	timer_delete_sync, del_singleshot_timer_sync, try_to_del_timer_sync,
	timer_delete_sync_try, timer_shutdown, timer_shutdown_sync,
	timer_pending};
struct timer_list *t;
position p;
@@
f@p(t, ...)

@typeddef@
identifier f = {timer_setup, timer_setup_on_stack,
	destroy_timer_on_stack, timer_destroy_on_stack, mod_timer,
	mod_timer_pending, timer_reduce, add_timer, add_timer_local,
	add_timer_global, add_timer_on, del_timer, timer_delete, del_timer_sync,
	timer_delete_sync, del_singleshot_timer_sync, try_to_del_timer_sync,
	timer_delete_sync_try, timer_shutdown, timer_shutdown_sync,
	timer_pending};
identifier deftimer.n;
position p;
@@
f@p(&n, ...)

@untyped@
identifier f = {timer_setup, timer_setup_on_stack,
	destroy_timer_on_stack, timer_destroy_on_stack, mod_timer,
	mod_timer_pending, timer_reduce, add_timer, add_timer_local,
	add_timer_global, add_timer_on, del_timer, timer_delete, del_timer_sync,
	timer_delete_sync, del_singleshot_timer_sync, try_to_del_timer_sync,
	timer_delete_sync_try, timer_shutdown, timer_shutdown_sync,
	timer_pending};
expression E;
position p != {typed.p, typeddef.p};
@@
f@p(E, ...)

@script:python@
p << untyped.p;
f << untyped.f;
@@
refuse(p, "%s(): the timer is not a struct timer_list of this file"
       " (a member of a struct from a header? a macro's argument?)" % f)

// What a struct timer_list * is set to: the pointer is retyped with the
// timers it points to, which must be this file's.  typed above takes a
// pointer on its type; these rules hold the pointer to what it is set to.
// A cast is refused whatever it casts: retyped to struct twheel_timer *,
// it would still compile with a struct timer_list behind it.  Not looked
// at: a pointer member set in an initialiser list ({ .timer = ... }).
@timercast disable drop_cast@
expression E, C;
position p;
@@
(
	C@p
&
	(struct timer_list *)E
)

@script:python@
p << timercast.p;
@@
refuse(p, "a cast to struct timer_list *: what it points to may be a struct"
       " timer_list of another file")

// What a pointer may be set to: NULL, another struct timer_list * of the
// file, &t, &t[i], &e->fld, &e.fld, e->fld or e.fld when Coccinelle types
// them struct timer_list *, as it can only for what this file declares;
// a call of a function of this file returning one, whose returns are held
// to the same; and a DEFINE_TIMER(), whose type Coccinelle does not see.
// A struct timer_list * typed expression of another shape - a call of
// another file's function or through a pointer, a cast, a ?: - is refused.
@settimer disable drop_cast@
idexpression struct timer_list *I;
position p;
@@
(
	I@p
|
	NULL@p
)

@setaddr disable drop_cast@
struct timer_list *T;
idexpression V;
expression e, i;
identifier fld;
position p;
@@
(
	T@p
&
	\( &V \| &e[i] \| &e->fld \| &e.fld \| e->fld \| e.fld \)
)

@setcall disable drop_cast@
identifier localfn.fn;
struct timer_list *T;
position p;
@@
(
	T@p
&
	fn(...)
)

@setdef@
identifier deftimer.n;
expression E;
position p;
@@
(
	E@p
&
	&n
)

@pointerset@
struct timer_list *L;
identifier x;
expression E;
position p != {settimer.p, setaddr.p, setcall.p, setdef.p,
	timercast.p};
@@
(
	struct timer_list *x = E@p;
|
	L = E@p
)

@script:python@
p << pointerset.p;
@@
refuse(p, "a struct timer_list * is set to " + NOT_TIMER)

// A parameter is set by each call: the n-th argument of a function of
// this file whose n-th parameter is a struct timer_list *.
@timerparam@
identifier fn, t;
parameter list[n] ps;
type R;
@@
R fn(ps, struct timer_list *t, ...) { ... }

@pointerarg@
identifier timerparam.fn;
expression list[timerparam.n] es;
expression E;
position p != {settimer.p, setaddr.p, setcall.p, setdef.p,
	timercast.p};
@@
fn(es, E@p, ...)

@script:python@
p << pointerarg.p;
fn << timerparam.fn;
@@
refuse(p, "%s() is handed as a struct timer_list * %s" % (fn, NOT_TIMER))

@pointerret@
identifier fn;
expression E;
position p != {settimer.p, setaddr.p, setcall.p, setdef.p,
	timercast.p};
@@
struct timer_list *fn(...) { <+... return E@p; ...+> }

@script:python@
p << pointerret.p;
fn << pointerret.fn;
@@
refuse(p, "%s() returns as a struct timer_list * %s" % (fn, NOT_TIMER))

// from_timer(var, t, fld) is container_of(t, typeof(*var), fld): var must
// point to a struct of this file whose member fld is converted with t.
@fromok@
identifier member.s, member.fld;
identifier f = {from_timer, timer_container_of};
struct s *v;
struct timer_list *t;
expression i;
position p;
@@
(
f@p(v, t, fld)
|
f@p(v, t, fld[i])
)

@fromuse@
identifier memberuse.s, memberuse.fld;
identifier f = {from_timer, timer_container_of};
struct s *v;
struct timer_list *t;
position p;
@@
f@p(v, t, fld)

@fromother@
identifier f = {from_timer, timer_container_of};
position p != {fromok.p, fromuse.p};
@@
f@p(...)

@script:python@
p << fromother.p;
f << fromother.f;
@@
refuse(p, "%s(): %s" % (f, NOT_MEMBER))

@containerok@
identifier member.s, member.fld;
struct timer_list *t;
position p;
@@
container_of@p(t, struct s, fld)

@containeruse@
identifier memberuse.s, memberuse.fld;
struct timer_list *t;
position p;
@@
container_of@p(t, struct s, fld)

// Anything else handed a timer wants a struct timer_list.
@foreign@
identifier f != {timer_setup, timer_setup_on_stack,
	destroy_timer_on_stack, timer_destroy_on_stack, mod_timer,
	mod_timer_pending, timer_reduce, add_timer, add_timer_local,
	add_timer_global, add_timer_on, del_timer, timer_delete, del_timer_sync,
	timer_delete_sync, del_singleshot_timer_sync, try_to_del_timer_sync,
	timer_delete_sync_try, timer_shutdown, timer_shutdown_sync,
	timer_pending, from_timer, timer_container_of};
struct timer_list *t;
position p != {localcall.p, containerok.p, containeruse.p, unsupported.p};
@@
f@p(..., t, ...)

@script:python@
p << foreign.p;
f << foreign.f;
@@
if f == "container_of":
	refuse(p, "container_of(): " + NOT_MEMBER)
else:
	refuse(p, "%s() %s" % (f, FOREIGN))

@foreigndef@
identifier f != {timer_setup, timer_setup_on_stack,
	destroy_timer_on_stack, timer_destroy_on_stack, mod_timer,
	mod_timer_pending, timer_reduce, add_timer, add_timer_local,
	add_timer_global, add_timer_on, del_timer, timer_delete, del_timer_sync,
	timer_delete_sync, del_singleshot_timer_sync, try_to_del_timer_sync,
	timer_delete_sync_try, timer_shutdown, timer_shutdown_sync,
	timer_pending};
identifier deftimer.n;
position p != {localcall.p, unsupported.p};
@@
f@p(..., &n, ...)

@script:python@
p << foreigndef.p;
f << foreigndef.f;
@@
refuse(p, "%s() %s" % (f, FOREIGN))

@badfield@
struct timer_list tv;
struct timer_list *tp;
identifier fld != {expires, function, flags};
position p;
@@
(
tv.fld@p
|
tp->fld@p
)

@script:python@
p << badfield.p;
fld << badfield.fld;
@@
refuse(p, "struct twheel_timer has no member %s" % fld)

@staticdecl@
identifier x;
type T;
position p;
@@
(
static T x@p;
|
extern T x@p;
)

@script:python@
p << staticdecl.p;
@@
statics.add(where(p))

@externtimer@
identifier x;
position p;
@@
extern struct timer_list x@p;

@script:python@
p << externtimer.p;
x << externtimer.x;
@@
refuse(p, "extern struct timer_list %s: defined in another file" % x)

@publictimer@
identifier x;
expression E;
position p : script:python() { file_scope_public(p) };
@@
(
struct timer_list x@p;
|
struct timer_list x@p[E];
|
struct timer_list *x@p;
)

@script:python@
p << publictimer.p;
x << publictimer.x;
@@
refuse(p, "struct timer_list %s is not static: other files may use it"
       " as one" % x)

// The callback must be a function of this file, whose parameter is
// converted with the timer.
@setupok@
identifier localfn.fn;
identifier setup = {timer_setup, timer_setup_on_stack};
expression t, flags;
position p;
@@
(
setup@p(t, fn, flags)
|
setup@p(t, &fn, flags)
|
setup@p(t, NULL, flags)
)

@setupother@
identifier setup = {timer_setup, timer_setup_on_stack};
expression t, fn, flags;
position p != setupok.p;
@@
setup@p(t, fn, flags)

@script:python@
p << setupother.p;
setup << setupother.setup;
fn << setupother.fn;
@@
refuse(p, "%s(): callback %s is not a function of this file" % (setup, fn))

@defok@
declarer name DEFINE_TIMER;
identifier localfn.fn;
identifier n;
position p;
@@
DEFINE_TIMER(n@p, fn);

@defother@
declarer name DEFINE_TIMER;
identifier n, fn;
position p != defok.p;
@@
DEFINE_TIMER(n@p, fn);

@script:python@
p << defother.p;
fn << defother.fn;
@@
refuse(p, "DEFINE_TIMER(): callback %s is not a function of this file" % fn)

@defstatic@
declarer name DEFINE_TIMER;
identifier n, fn;
position p;
@@
static DEFINE_TIMER(n@p, fn);

@defpublic@
declarer name DEFINE_TIMER;
identifier n, fn;
position p != defstatic.p;
@@
DEFINE_TIMER(n@p, fn);

@script:python@
p << defpublic.p;
n << defpublic.n;
@@
refuse(p, "DEFINE_TIMER(%s) is not static: other files may use it as"
       " a struct timer_list" % n)

@staticfn@
identifier fn;
type R;
position p;
@@
static R fn@p(...) { ... }

@publicfn@
identifier fn, t;
type R;
position p != staticfn.p;
@@
R fn@p(..., struct timer_list *t, ...) { ... }

@script:python@
p << publicfn.p;
fn << publicfn.fn;
@@
refuse(p, "%s() takes a struct timer_list and is not static: other files"
       " call it with one" % fn)

@script:python ok depends on !irqsafe && !unsupported && !untyped &&
	!timercast && !pointerset && !pointerarg && !pointerret &&
	!fromother && !foreign && !foreigndef && !badfield && !externtimer &&
	!publictimer && !setupother && !defother && !defpublic && !publicfn@
@@
pass

// ------------------------------------------------------------------------
// The conversion, of a file with none of the above.

@inc@
position p;
@@
#include <linux/...>@p

@script:python@
p << inc.p;
@@
last_include[p[0].file] = max(last_include.get(p[0].file, 0), int(p[0].line))

@has_twheel_timer@
@@
#include <twheel_timer.h>

@calls depends on ok@
@@
(
- timer_setup
+ twheel_timer_setup
|
- timer_setup_on_stack
+ twheel_timer_setup_on_stack
|
- destroy_timer_on_stack
+ twheel_timer_destroy_on_stack
|
- timer_destroy_on_stack
+ twheel_timer_destroy_on_stack
|
- from_timer
+ twheel_from_timer
|
- timer_container_of
+ twheel_from_timer
|
- mod_timer
+ twheel_mod_timer
|
- mod_timer_pending
+ twheel_mod_timer_pending
|
- timer_reduce
+ twheel_timer_reduce
|
- add_timer
+ twheel_add_timer
|
- add_timer_local
+ twheel_add_timer_local
|
- add_timer_global
+ twheel_add_timer_global
|
- add_timer_on
+ twheel_add_timer_on
|
- del_timer
+ twheel_timer_delete
|
- timer_delete
+ twheel_timer_delete
|
- del_timer_sync
+ twheel_timer_delete_sync
|
- timer_delete_sync
+ twheel_timer_delete_sync
|
- del_singleshot_timer_sync
+ twheel_timer_delete_sync
|
- try_to_del_timer_sync
+ twheel_timer_delete_sync_try
|
- timer_delete_sync_try
+ twheel_timer_delete_sync_try
|
- timer_shutdown
+ twheel_timer_shutdown
|
- timer_shutdown_sync
+ twheel_timer_shutdown_sync
|
- timer_pending
+ twheel_timer_pending
)
  (...)

@define depends on ok@
declarer name DEFINE_TIMER, DEFINE_TWHEEL_TIMER;
identifier n, fn;
@@
- DEFINE_TIMER(n, fn);
+ DEFINE_TWHEEL_TIMER(n, fn);

@retype depends on ok@
@@
- struct timer_list
+ struct twheel_timer

@depends on ok && !has_twheel_timer && (calls || define || retype)@
position p : script:python() { int(p[0].line) == last_include[p[0].file] };
@@
#include <linux/...>@p
+#include <twheel_timer.h>
