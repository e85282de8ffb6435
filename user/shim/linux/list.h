/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/list.h for twheel's user-space builds: the circular doubly linked
 * list with a head node, with the kernel's names and meanings.  A deleted
 * node's links are set to NULL, so that using it without re-initialising
 * it crashes at once.
 */
#ifndef _SHIM_LINUX_LIST_H
#define _SHIM_LINUX_LIST_H

#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/types.h>

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	WRITE_ONCE(list->next, list);
	list->prev = list;
}

/* Link @new between the adjacent nodes @prev and @next. */
static inline void shim_list_link(struct list_head *new,
				  struct list_head *prev,
				  struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	WRITE_ONCE(prev->next, new);
}

/* Join @prev and @next, dropping whatever lay between them. */
static inline void shim_list_join(struct list_head *prev,
				  struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}

/* Add @new just after @head: at the front of the list. */
static inline void list_add(struct list_head *new, struct list_head *head)
{
	shim_list_link(new, head, head->next);
}

/* Add @new just before @head: at the back of the list. */
static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	shim_list_link(new, head->prev, head);
}

static inline void list_del(struct list_head *entry)
{
	shim_list_join(entry->prev, entry->next);
	entry->next = NULL;
	entry->prev = NULL;
}

static inline void list_del_init(struct list_head *entry)
{
	shim_list_join(entry->prev, entry->next);
	INIT_LIST_HEAD(entry);
}

static inline void list_move(struct list_head *list, struct list_head *head)
{
	shim_list_join(list->prev, list->next);
	list_add(list, head);
}

static inline void list_move_tail(struct list_head *list,
				  struct list_head *head)
{
	shim_list_join(list->prev, list->next);
	list_add_tail(list, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

static inline bool list_is_first(const struct list_head *list,
				 const struct list_head *head)
{
	return list->prev == head;
}

static inline bool list_is_last(const struct list_head *list,
				const struct list_head *head)
{
	return list->next == head;
}

/* Insert the nodes of the non-empty @list between @prev and @next. */
static inline void shim_list_insert(const struct list_head *list,
				    struct list_head *prev,
				    struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/* Move the nodes of @list to the front of @head; @list is left stale. */
static inline void list_splice(const struct list_head *list,
			       struct list_head *head)
{
	if (!list_empty(list))
		shim_list_insert(list, head, head->next);
}

/* Move the nodes of @list to the back of @head; @list is left stale. */
static inline void list_splice_tail(const struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list))
		shim_list_insert(list, head->prev, head);
}

/* As list_splice(), and @list is left empty. */
static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list)) {
		shim_list_insert(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

/* As list_splice_tail(), and @list is left empty. */
static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (!list_empty(list)) {
		shim_list_insert(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(ptr, type, member)				\
	list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member)				\
	list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member)			\
	(list_empty(ptr) ? NULL : list_first_entry(ptr, type, member))
#define list_next_entry(pos, member)					\
	list_entry((pos)->member.next, typeof(*(pos)), member)
#define list_prev_entry(pos, member)					\
	list_entry((pos)->member.prev, typeof(*(pos)), member)
#define list_entry_is_head(pos, head, member)	(&(pos)->member == (head))

#define list_for_each(pos, head)					\
	for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head)				\
	for (pos = (head)->next, n = pos->next; pos != (head);		\
	     pos = n, n = pos->next)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, typeof(*pos), member);	\
	     !list_entry_is_head(pos, head, member);			\
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_reverse(pos, head, member)			\
	for (pos = list_last_entry(head, typeof(*pos), member);		\
	     !list_entry_is_head(pos, head, member);			\
	     pos = list_prev_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, typeof(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     !list_entry_is_head(pos, head, member);			\
	     pos = n, n = list_next_entry(n, member))

#endif /* _SHIM_LINUX_LIST_H */
