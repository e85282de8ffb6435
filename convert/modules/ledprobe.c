// SPDX-License-Identifier: GPL-2.0
/*
 * ledprobe - an LED that writes down when its brightness changes.
 *
 * scripts/convert-check.sh attaches an LED trigger to this LED, first the
 * kernel's own copy of the trigger and then the same source converted to
 * twheel, and compares what the two did to it.  The LED has a
 * brightness_set() operation, the kind that must not sleep, so the LED
 * core calls it in the context of whoever sets the brightness: for a
 * trigger, its timer function, in softirq context.  The time taken there
 * is the time the timer ran, give or take the microseconds of the call.
 * /dev/uleds and a program reading it would add a user-space wakeup to
 * every event, milliseconds under QEMU's emulation and never the same
 * twice, which would hide the tick that tells twheel from timer_list.
 *
 * Each record holds ktime_get_ns(), jiffies and the 1-minute load
 * average (what ledtrig-heartbeat's period depends on), with the
 * brightness or, for a mark written by the guest's script, its text.
 *
 * /sys/kernel/debug/ledprobe/
 *   events  the header "hz HZ tick_nsec TICK_NSEC dropped N", then one
 *           line a record: "NS JIFFIES LOAD set BRIGHTNESS" or
 *           "NS JIFFIES LOAD mark TEXT"
 *   count   how many brightness records there are
 *   mark    write a line of text to record a mark
 */

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/leds.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/loadavg.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define PROBE_LABEL_LEN	64

static unsigned int capacity = 4096;
module_param(capacity, uint, 0444);
MODULE_PARM_DESC(capacity, "records kept; later ones are counted as dropped");

/* A brightness change, or a mark when label[0] is set. */
struct probe_record {
	u64 ns;
	unsigned long jiffies;
	unsigned long load;
	unsigned int brightness;
	char label[PROBE_LABEL_LEN];
};

static struct {
	/*
	 * Holding lock means that no record is being added; brightness_set()
	 * may come from any context, so it is taken with interrupts off.
	 */
	spinlock_t lock;
	struct probe_record *records;	/* Locked by lock: [0, used) */
	unsigned int used;		/* Locked by lock */
	unsigned int sets;		/* Locked by lock */
	unsigned int dropped;		/* Locked by lock */
	struct dentry *dir;
} probe = {
	.lock = __SPIN_LOCK_UNLOCKED(probe.lock),
};

static void probe_record(unsigned int brightness, const char *label)
{
	u64 ns = ktime_get_ns();
	struct probe_record *r;
	unsigned long flags;

	spin_lock_irqsave(&probe.lock, flags);
	if (probe.used == capacity) {
		probe.dropped++;
	} else {
		r = &probe.records[probe.used++];
		r->ns = ns;
		r->jiffies = jiffies;
		r->load = avenrun[0];
		r->brightness = brightness;
		strscpy(r->label, label ?: "", sizeof(r->label));
		if (!label)
			probe.sets++;
	}
	spin_unlock_irqrestore(&probe.lock, flags);
}

static void probe_brightness_set(struct led_classdev *cdev,
				 enum led_brightness brightness)
{
	probe_record(brightness, NULL);
}

static struct led_classdev probe_led = {
	.name = "ledprobe",
	.max_brightness = LED_FULL,
	.brightness_set = probe_brightness_set,
};

static int events_show(struct seq_file *m, void *v)
{
	unsigned int n, dropped, i;
	struct probe_record *copy;
	unsigned long flags;

	/* Copy under the lock, print after unlocking. */
	copy = kvmalloc_array(capacity, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_irqsave(&probe.lock, flags);
	n = probe.used;
	dropped = probe.dropped;
	memcpy(copy, probe.records, n * sizeof(*copy));
	spin_unlock_irqrestore(&probe.lock, flags);

	seq_printf(m, "hz %d tick_nsec %lu dropped %u\n", HZ,
		   (unsigned long)TICK_NSEC, dropped);
	for (i = 0; i < n; i++) {
		struct probe_record *r = &copy[i];

		seq_printf(m, "%llu %lu %lu ", r->ns, r->jiffies, r->load);
		if (r->label[0])
			seq_printf(m, "mark %s\n", r->label);
		else
			seq_printf(m, "set %u\n", r->brightness);
	}
	kvfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(events);

static int count_show(struct seq_file *m, void *v)
{
	unsigned long flags;
	unsigned int sets;

	spin_lock_irqsave(&probe.lock, flags);
	sets = probe.sets;
	spin_unlock_irqrestore(&probe.lock, flags);
	seq_printf(m, "%u\n", sets);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(count);

static ssize_t mark_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	char label[PROBE_LABEL_LEN], *text;
	size_t n = min(len, sizeof(label) - 1);

	if (copy_from_user(label, ubuf, n))
		return -EFAULT;
	label[n] = '\0';
	text = strim(label);
	if (!text[0])
		return -EINVAL;
	probe_record(0, text);
	return len;
}

static const struct file_operations mark_fops = {
	.owner = THIS_MODULE,
	.write = mark_write,
};

static int __init probe_init(void)
{
	int err;

	if (!capacity)
		return -EINVAL;
	probe.records = kvcalloc(capacity, sizeof(*probe.records), GFP_KERNEL);
	if (!probe.records)
		return -ENOMEM;
	err = led_classdev_register(NULL, &probe_led);
	if (err) {
		kvfree(probe.records);
		return err;
	}
	probe.dir = debugfs_create_dir("ledprobe", NULL);
	debugfs_create_file("events", 0444, probe.dir, NULL, &events_fops);
	debugfs_create_file("count", 0444, probe.dir, NULL, &count_fops);
	debugfs_create_file("mark", 0200, probe.dir, NULL, &mark_fops);
	return 0;
}

static void __exit probe_exit(void)
{
	debugfs_remove_recursive(probe.dir);
	led_classdev_unregister(&probe_led);
	kvfree(probe.records);
}

module_init(probe_init);
module_exit(probe_exit);

MODULE_DESCRIPTION("An LED that records its brightness changes, for convert-check");
MODULE_LICENSE("GPL");
