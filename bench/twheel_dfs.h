/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_dfs.h - twheel's debugfs files, read and written as a user does,
 * for the benchmark modules and the debugfs KUnit suite.
 *
 * The bench modules are twheel clients: besides <twheel.h> they know twheel
 * only through its debugfs files.  Each includes this header for its own
 * copy of the readers, as static inline functions, rather than linking one
 * object into several modules.  The files are reached through a shell
 * started as a usermode helper, so the guest needs /bin/sh, cat and a
 * writable /tmp.
 */
#ifndef _TWHEEL_DFS_H
#define _TWHEEL_DFS_H

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/umh.h>

#include "twheel.h"

#define DFS_STATS	"/sys/kernel/debug/twheel/stats"
#define DFS_CONFIG	"/sys/kernel/debug/twheel/config"
#define DFS_LATENCY	"/sys/kernel/debug/twheel/latency"

/**
 * struct dfs_config - what twheel says it runs, from "config"
 * @scheme: 6 or 7.
 * @levels: levels of the geometry, up to 8.
 * @slots: the geometry's slots per level, finest first.
 * @geometry: the same as text, "256/256/256".
 * @tick_ns: the tick length.
 */
struct dfs_config {
	unsigned int scheme;
	unsigned int levels;
	unsigned int slots[8];
	char geometry[64];
	u64 tick_ns;
};

/*
 * Run @cmd with /bin/sh as a usermode helper.  Return: 0 if it exits with
 * 0, -EIO if it exits otherwise, -errno if it cannot be started.
 */
static inline int dfs_sh(const char *cmd)
{
	char *argv[4], *envp[2];
	int ret;

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = (char *)cmd;
	argv[3] = NULL;
	envp[0] = "PATH=/bin:/sbin";
	envp[1] = NULL;
	ret = call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
	return ret < 0 ? ret : ret ? -EIO : 0;
}

/**
 * dfs_read() - read a whole debugfs file as a user does
 * @path: the file.
 * @buf: where to, NUL-terminated.
 * @size: the size of @buf.
 *
 * A shell copies @path into a file of the calling task's own in /tmp (a
 * tmpfs in the test guests), which kernel_read() then reads: debugfs's
 * proxy passes only read() on, which takes a user buffer.
 *
 * Context: process context; sleeps.
 * Return: 0, or -errno; -EIO if the copy failed.
 */
static inline int dfs_read(const char *path, char *buf, size_t size)
{
	char tmp[32], *cmd;
	struct file *f;
	size_t len = 0;
	loff_t pos = 0;
	ssize_t n;
	int ret;

	snprintf(tmp, sizeof(tmp), "/tmp/twheel-dfs.%d", task_pid_nr(current));
	cmd = kasprintf(GFP_KERNEL, "cat %s >%s", path, tmp);
	if (!cmd)
		return -ENOMEM;
	ret = dfs_sh(cmd);
	kfree(cmd);
	buf[0] = '\0';
	if (ret)
		return ret;
	f = filp_open(tmp, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	do {
		n = kernel_read(f, buf + len, size - 1 - len, &pos);
		if (n > 0)
			len += n;
	} while (n > 0 && len < size - 1);
	filp_close(f, NULL);
	buf[len] = '\0';
	return n < 0 ? n : 0;
}

/**
 * dfs_write() - write a string to a debugfs file as a user does
 * @path: the file.
 * @s: what to write (a shell word: no quoting is done).
 *
 * Context: process context; sleeps.
 * Return: 0 if the write succeeded, -EIO if it was refused, -errno if no
 * shell could be started.
 */
static inline int dfs_write(const char *path, const char *s)
{
	char *cmd = kasprintf(GFP_KERNEL, "echo %s >%s", s, path);
	int ret;

	if (!cmd)
		return -ENOMEM;
	ret = dfs_sh(cmd);
	kfree(cmd);
	return ret;
}

/* Fill @cfg from "config"; -EPROTO if it does not say what this needs. */
static inline int dfs_read_config(struct dfs_config *cfg)
{
	unsigned long long tick = 0;
	char *buf, *line, *p;
	unsigned int slots, len = 0;
	int ret;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = dfs_read(DFS_CONFIG, buf, PAGE_SIZE);
	memset(cfg, 0, sizeof(*cfg));
	for (p = buf; !ret && (line = strsep(&p, "\n"));) {
		if (sscanf(line, "scheme: %u", &cfg->scheme) == 1 ||
		    sscanf(line, "tick_ns: %llu", &tick) == 1 ||
		    !str_has_prefix(line, "geometry:"))
			continue;
		line += strlen("geometry:");
		while (cfg->levels < ARRAY_SIZE(cfg->slots) &&
		       sscanf(line, " %u", &slots) == 1) {
			cfg->slots[cfg->levels++] = slots;
			len += scnprintf(cfg->geometry + len,
					 sizeof(cfg->geometry) - len, "%s%u",
					 len ? "/" : "", slots);
			line = skip_spaces(line);
			line += strcspn(line, " ");
		}
	}
	kfree(buf);
	if (ret)
		return ret;
	cfg->tick_ns = twheel_tick_ns();
	if (!cfg->scheme || !cfg->levels || tick != cfg->tick_ns)
		return -EPROTO;
	return 0;
}

/* The next blank-separated word of *@p, or NULL. */
static inline char *dfs_word(char **p)
{
	char *w;

	do {
		w = strsep(p, " \t");
	} while (w && !*w);
	return w;
}

/**
 * dfs_read_stats_row() - columns of one row of "stats", by name
 * @row: the row's first word: a CPU's number, or "total".
 * @names: the column names, as the header row spells them.
 * @vals: their values, -1 for a column this twheel does not have.
 * @nr: the number of @names and @vals.
 *
 * "stats" has a header row of names starting with "cpu", then a row per
 * CPU starting with its number, then a total.
 *
 * Context: process context; sleeps.
 * Return: 0, or -errno if the file cannot be read or has no such row.
 */
static inline int dfs_read_stats_row(const char *row, const char *const *names,
				     s64 *vals, unsigned int nr)
{
	const size_t size = 4 * PAGE_SIZE;
	char *buf, *p, *line, *header = NULL, *found = NULL, *h, *v;
	unsigned long long val;
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++)
		vals[i] = -1;
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = dfs_read(DFS_STATS, buf, size);
	for (p = buf; !ret && (line = strsep(&p, "\n"));) {
		if (str_has_prefix(line, "cpu "))
			header = line;
		else if (str_has_prefix(line, row) &&
			 (line[strlen(row)] == ' ' || line[strlen(row)] == '\t'))
			found = line;
	}
	if (!ret && (!header || !found))
		ret = -EPROTO;
	while (!ret && (h = dfs_word(&header)) && (v = dfs_word(&found))) {
		if (kstrtoull(v, 10, &val))
			continue;
		for (i = 0; i < nr; i++)
			if (!strcmp(h, names[i]))
				vals[i] = val;
	}
	kfree(buf);
	return ret;
}

/**
 * dfs_read_cpu_stats() - columns of one CPU's row of "stats", by name
 * @cpu: the CPU.
 * @names: the column names, as the header row spells them.
 * @vals: their values, -1 for a column this twheel does not have.
 * @nr: the number of @names and @vals.
 *
 * Context: process context; sleeps.
 * Return: as dfs_read_stats_row().
 */
static inline int dfs_read_cpu_stats(unsigned int cpu,
				     const char *const *names, s64 *vals,
				     unsigned int nr)
{
	char row[12];

	snprintf(row, sizeof(row), "%u", cpu);
	return dfs_read_stats_row(row, names, vals, nr);
}

#endif /* _TWHEEL_DFS_H */
