/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wheel entry, shared by the core (twheel_core.h) and the public
 * callout handle (twheel.h), which embeds one.
 */
#ifndef _TWHEEL_ENTRY_H
#define _TWHEEL_ENTRY_H

#include <linux/list.h>
#include <linux/types.h>

/* The value of twheel_entry.slot that is not a slot number: on no list. */
#define TWHEEL_SLOT_IDLE	U32_MAX

/**
 * struct twheel_entry - one timer in a wheel
 * @node: while the entry is pending, its link in a slot's list, or in one
 *	of the lists a wheel takes a slot's entries into while it drains or
 *	runs that slot.  An idle entry's links are left as they were when it
 *	left its list (twheel_entry_init() points them at the entry itself):
 *	@slot, not @node, says whether it is pending, as timer_list's pprev
 *	does.
 * @expires: the absolute tick the entry is due on.  This is what the paper
 *	keeps in an entry's high-order bits: the slot gives the low-order part,
 *	and the wheel compares @expires with the time when the slot comes round.
 * @slot: index of the slot the entry is in, or %TWHEEL_SLOT_IDLE.  The
 *	wheels leave it unchanged while the entry waits on a list taken out
 *	of that slot.
 * @owner: not used by the wheel; its owner's to use (it fills what would
 *	otherwise be padding).
 *
 * Entries are embedded in their owner's structure; the core never allocates
 * or frees one.
 */
struct twheel_entry {
	struct list_head node;
	u64 expires;
	u32 slot;
	u32 owner;
};

#endif /* _TWHEEL_ENTRY_H */
