// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: configfs tree for scheduling-domain setup.
 *
 *   /sys/kernel/config/dlb2/dlb2_<N>/<domain>/{queues,ports}/...
 *
 * Documented in Documentation/ABI/testing/configfs-dlb2.  A domain is a
 * description until "enable" commits it (domain.c).  While a domain is
 * enabled, its queue and port items are held with configfs_depend_item so
 * that rmdir answers EBUSY, and every store answers EBUSY; only links change
 * (the hardware's dynamic map and unmap).  Enable and disable take the
 * subsystem's su_mutex, which configfs holds from make_group() to linking an
 * item and from unlinking it to drop_item(), before the device lock.
 *
 * Each dlb2_<N> directory uses the device lock of its PCI function
 * (dlb2_function.lock, dlb2.h "Locking"): every store, show and make/drop
 * below it takes that lock, under which dlb2_function.dlb2 says whether
 * (and which) device is bound.  Disabling a domain revokes its ports under
 * the lock and calls their P2P holders once the lock, and su_mutex, are
 * dropped.
 *
 * Every errno dlb2 returns to a write, mkdir or rmdir below dlb2_<N> is
 * explained by a debug message (refused(): dynamic debug, "module dlb2
 * +p"), naming the object, the attribute, the value and the reason.
 *
 * The dlb2_<N> directories are created at the first probe of a PCI function
 * and live until the module is unloaded, so that an unbind never has to
 * remove directories an administrator made; configfs pins the module while
 * any exist.
 */
#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "domain.h"
#include "trace.h"

#define DLB2_STATUS_MAX		160
#define DLB2_WHY_MAX		80	/* the reason of a refused write */

/*
 * /sys/kernel/config/dlb2/dlb2_<N>, one per PCI function, made at its
 * first probe and kept until the module goes; in dlb2_cfs_devs at N.
 */
struct dlb2_cfs_dev {
	struct config_group group;
	struct dlb2_function *fn;	/* its lock is the device lock */
	struct list_head domains;	/* under fn->lock */
};

struct dlb2_cfs_domain {
	struct config_group group;
	struct config_group queues_group;
	struct config_group ports_group;
	struct list_head node;
	struct dlb2_cfs_dev *dev;
	struct list_head queues;
	struct list_head ports;
	u32 ldb_credits;
	u32 dir_credits;
	struct dlb2_domain *hw;		/* non-NULL while enabled */
	char status[DLB2_STATUS_MAX];
};

struct dlb2_cfs_queue {
	struct config_group group;
	struct list_head node;
	struct dlb2_cfs_domain *dom;
	bool removed;
	unsigned int index;		/* in the enabled domain */
	struct dlb2_queue_desc desc;
};

struct dlb2_cfs_port {
	struct config_group group;
	struct config_group links_group;
	struct list_head node;
	struct dlb2_cfs_domain *dom;
	struct list_head links;
	unsigned int num_links;
	unsigned int index;
	struct dlb2_port_desc desc;
};

struct dlb2_cfs_link {
	struct config_group group;
	struct list_head node;
	struct dlb2_cfs_port *port;
	struct dlb2_cfs_queue *queue;	/* holds a reference */
	u8 prio;
};

static DEFINE_XARRAY(dlb2_cfs_devs);

#define to_cfs(type, item) container_of(to_config_group(item), type, group)

static struct dlb2_cfs_domain *to_dom(struct config_item *item)
{
	return to_cfs(struct dlb2_cfs_domain, item);
}

static struct dlb2_cfs_queue *to_queue(struct config_item *item)
{
	return to_cfs(struct dlb2_cfs_queue, item);
}

static struct dlb2_cfs_port *to_port(struct config_item *item)
{
	return to_cfs(struct dlb2_cfs_port, item);
}

static struct dlb2_cfs_link *to_link(struct config_item *item)
{
	return to_cfs(struct dlb2_cfs_link, item);
}

static struct configfs_subsystem dlb2_subsys;

/* @item's path below /sys/kernel/config/dlb2 (dlb2_<N>/<domain>/...). */
static void item_path(struct config_item *item, char *buf, size_t len)
{
	const char *names[8];
	unsigned int n = 0;
	size_t off = 0;

	while (item && item != &dlb2_subsys.su_group.cg_item &&
	       n < ARRAY_SIZE(names)) {
		names[n++] = config_item_name(item);
		item = item->ci_parent;
	}
	buf[0] = '\0';
	while (n-- && off < len)
		off += scnprintf(buf + off, len - off, "%s%s", off ? "/" : "",
				 names[n]);
}

/**
 * refused() - say why dlb2 refused a write, mkdir or rmdir
 * @dev: the dlb2_<N> directory; its device lock held (dev->fn->dlb2 stable)
 * @item: the item written, or the group a mkdir was in
 * @err: the errno returned
 * @fmt: what was refused, and why
 *
 * A debug message of the device bound to the directory (dev_dbg()), or,
 * while none is, of the PCI function the directory is for (pr_debug()):
 * "<path>: <what>: <why> (<errno>)".
 */
static __printf(4, 5) void refused(struct dlb2_cfs_dev *dev,
				   struct config_item *item, int err,
				   const char *fmt, ...)
{
	char path[128];
	struct va_format vaf;
	va_list args;

	lockdep_assert_held(&dev->fn->lock);
	item_path(item, path, sizeof(path));
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (dev->fn->dlb2)
		dev_dbg(&dev->fn->dlb2->pdev->dev, "configfs %s: %pV (%pe)\n",
			path, &vaf, ERR_PTR(err));
	else
		pr_debug("dlb2 %s: configfs %s: %pV (%pe)\n", dev->fn->pci_name,
			 path, &vaf, ERR_PTR(err));
	va_end(args);
}

/* The value a user wrote, for refused(): its first line, cut to @len. */
static const char *first_line(const char *page, char *buf, size_t len)
{
	strscpy(buf, page, len);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Names become paths under /dev and sysfs: keep them simple. */
static int check_name(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len > DLB2_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return -EINVAL;
	return 0;
}

#define NAME_RULE	"names are 1 to 32 of A-Z a-z 0-9 _ . -"

/*
 * The parsers: 0, or an errno with the reason in @why (DLB2_WHY_MAX
 * bytes).
 */
static int parse_u32(const char *page, u32 min, u32 max, u32 *val, char *why)
{
	u32 v;

	if (kstrtou32(page, 0, &v)) {
		snprintf(why, DLB2_WHY_MAX, "not a number");
		return -EINVAL;
	}
	if (v < min || v > max) {
		snprintf(why, DLB2_WHY_MAX, "not in %u..%u", min, max);
		return -ERANGE;
	}
	*val = v;
	return 0;
}

/* Index of @page (one word, newline allowed) in @words, or -EINVAL. */
static int parse_word(const char *page, const char *const *words,
		      unsigned int n, char *why)
{
	int i = __sysfs_match_string(words, n, page);
	size_t off;

	if (i >= 0)
		return i;
	off = scnprintf(why, DLB2_WHY_MAX, "not one of");
	for (i = 0; i < n; i++)
		off += scnprintf(why + off, DLB2_WHY_MAX - off, " %s", words[i]);
	return -EINVAL;
}

/*
 * Stores: the value is parsed and checked, and set only when the domain is
 * disabled; nothing changes on an error.
 */
#define CFS_STORE(prefix, attr, to_obj, dom_of, parse)			\
static ssize_t prefix##attr##_store(struct config_item *item,		\
				    const char *page, size_t count)	\
{									\
	typeof(to_obj(item)) obj = to_obj(item);			\
	struct dlb2_cfs_domain *dom = dom_of(obj);			\
	char why[DLB2_WHY_MAX] = "";					\
	char val[33];							\
	int ret;							\
									\
	mutex_lock(&dom->dev->fn->lock);				\
	if (dom->hw) {							\
		ret = -EBUSY;						\
		strscpy(why, "the domain is enabled", sizeof(why));	\
	} else {							\
		ret = (parse);						\
	}								\
	if (ret)							\
		refused(dom->dev, item, ret, #attr " \"%s\": %s",	\
			first_line(page, val, sizeof(val)), why);	\
	mutex_unlock(&dom->dev->fn->lock);				\
	return ret ? ret : count;					\
}

/* ---- queues ---------------------------------------------------------- */

static const char *const type_words[] = { "ldb", "dir" };
static const char *const sched_words[] = {
	[DLB2_Q_ATOMIC] = "atomic",
	[DLB2_Q_ORDERED] = "ordered",
	[DLB2_Q_UNORDERED] = "unordered",
};

#define QDOM(q) ((q)->dom)

static int parse_type(const char *page, bool *ldb, char *why)
{
	int i = parse_word(page, type_words, ARRAY_SIZE(type_words), why);

	if (i < 0)
		return i;
	*ldb = i == 0;
	return 0;
}

static int parse_sched(const char *page, enum dlb2_sched *sched, char *why)
{
	int i = parse_word(page, sched_words, ARRAY_SIZE(sched_words), why);

	if (i < 0)
		return i;
	*sched = i;
	return 0;
}

static int parse_sns(const char *page, u32 *sns, char *why)
{
	u32 v;

	if (kstrtou32(page, 0, &v)) {
		snprintf(why, DLB2_WHY_MAX, "not a number");
		return -EINVAL;
	}
	if (v && (v < 64 || v > DLB2_SNS_PER_GROUP || !is_power_of_2(v))) {
		snprintf(why, DLB2_WHY_MAX,
			 "not 0 or a power of two in 64..%u",
			 DLB2_SNS_PER_GROUP);
		return -EINVAL;
	}
	*sns = v;
	return 0;
}

static int parse_lock_id_comp(const char *page, u32 *comp, char *why)
{
	u32 v;

	if (kstrtou32(page, 0, &v)) {
		snprintf(why, DLB2_WHY_MAX, "not a number");
		return -EINVAL;
	}
	if (v && v != 65536 && (v < 64 || v > 4096 || !is_power_of_2(v))) {
		snprintf(why, DLB2_WHY_MAX,
			 "not 0, 65536 or a power of two in 64..4096");
		return -EINVAL;
	}
	*comp = v;
	return 0;
}

static ssize_t queue_type_show(struct config_item *item, char *page)
{
	return sprintf(page, "%s\n", to_queue(item)->desc.ldb ? "ldb" : "dir");
}

CFS_STORE(queue_, type, to_queue, QDOM,
	  parse_type(page, &obj->desc.ldb, why))

static ssize_t queue_sched_show(struct config_item *item, char *page)
{
	return sprintf(page, "%s\n", sched_words[to_queue(item)->desc.sched]);
}

CFS_STORE(queue_, sched, to_queue, QDOM,
	  parse_sched(page, &obj->desc.sched, why))

static ssize_t queue_depth_threshold_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_queue(item)->desc.depth_threshold);
}

CFS_STORE(queue_, depth_threshold, to_queue, QDOM,
	  parse_u32(page, 0, 8191, &obj->desc.depth_threshold, why))

static ssize_t queue_sequence_numbers_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_queue(item)->desc.sns);
}

CFS_STORE(queue_, sequence_numbers, to_queue, QDOM,
	  parse_sns(page, &obj->desc.sns, why))

static ssize_t queue_atomic_inflights_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_queue(item)->desc.atomic_inflights);
}

CFS_STORE(queue_, atomic_inflights, to_queue, QDOM,
	  parse_u32(page, 0, DLB2_ATOMIC_INFLIGHTS,
		    &obj->desc.atomic_inflights, why))

static ssize_t queue_lock_id_compression_show(struct config_item *item,
					      char *page)
{
	return sprintf(page, "%u\n", to_queue(item)->desc.lock_id_comp);
}

CFS_STORE(queue_, lock_id_compression, to_queue, QDOM,
	  parse_lock_id_comp(page, &obj->desc.lock_id_comp, why))

static ssize_t queue_id_show(struct config_item *item, char *page)
{
	struct dlb2_cfs_queue *q = to_queue(item);
	int id = -1;

	mutex_lock(&q->dom->dev->fn->lock);
	if (q->dom->hw && !q->removed)
		id = q->dom->hw->queues[q->index].hw.id;
	mutex_unlock(&q->dom->dev->fn->lock);
	return sprintf(page, "%d\n", id);
}

CONFIGFS_ATTR(queue_, type);
CONFIGFS_ATTR(queue_, sched);
CONFIGFS_ATTR(queue_, depth_threshold);
CONFIGFS_ATTR(queue_, sequence_numbers);
CONFIGFS_ATTR(queue_, atomic_inflights);
CONFIGFS_ATTR(queue_, lock_id_compression);
CONFIGFS_ATTR_RO(queue_, id);

static struct configfs_attribute *queue_attrs[] = {
	&queue_attr_type,
	&queue_attr_sched,
	&queue_attr_depth_threshold,
	&queue_attr_sequence_numbers,
	&queue_attr_atomic_inflights,
	&queue_attr_lock_id_compression,
	&queue_attr_id,
	NULL,
};

static void queue_release(struct config_item *item)
{
	kfree(to_queue(item));
}

static struct configfs_item_operations queue_item_ops = {
	.release = queue_release,
};

static const struct config_item_type queue_type = {
	.ct_item_ops = &queue_item_ops,
	.ct_attrs = queue_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *queues_make(struct config_group *group,
					const char *name)
{
	struct dlb2_cfs_domain *dom = container_of(group, struct dlb2_cfs_domain,
						   queues_group);
	struct dlb2_cfs_queue *q;
	int ret = check_name(name);

	if (ret) {
		mutex_lock(&dom->dev->fn->lock);
		refused(dom->dev, &group->cg_item, ret, "mkdir %.40s: " NAME_RULE,
			name);
		mutex_unlock(&dom->dev->fn->lock);
		return ERR_PTR(ret);
	}
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return ERR_PTR(-ENOMEM);
	q->dom = dom;
	q->desc = (struct dlb2_queue_desc){
		.ldb = true,
		.sched = DLB2_Q_ATOMIC,
		.depth_threshold = 256,
		.atomic_inflights = 64,
	};
	mutex_lock(&dom->dev->fn->lock);
	if (dom->hw) {
		refused(dom->dev, &group->cg_item, -EBUSY,
			"mkdir %s: the domain is enabled", name);
		mutex_unlock(&dom->dev->fn->lock);
		kfree(q);
		return ERR_PTR(-EBUSY);
	}
	/* After the check: it allocates a long name, which kfree(q) leaks. */
	config_group_init_type_name(&q->group, name, &queue_type);
	list_add_tail(&q->node, &dom->queues);
	mutex_unlock(&dom->dev->fn->lock);
	return &q->group;
}

static void queues_drop(struct config_group *group, struct config_item *item)
{
	struct dlb2_cfs_queue *q = to_queue(item);

	mutex_lock(&q->dom->dev->fn->lock);
	list_del(&q->node);
	q->removed = true;
	mutex_unlock(&q->dom->dev->fn->lock);
	config_item_put(item);
}

static struct configfs_group_operations queues_group_ops = {
	.make_group = queues_make,
	.drop_item = queues_drop,
};

static const struct config_item_type queues_type = {
	.ct_group_ops = &queues_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- links ----------------------------------------------------------- */

#define LDOM(l) ((l)->port->dom)

static ssize_t link_priority_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_link(item)->prio);
}

static int parse_prio(const char *page, u8 *prio, char *why)
{
	u32 v;
	int ret = parse_u32(page, 0, 7, &v, why);

	if (!ret)
		*prio = v;
	return ret;
}

CFS_STORE(link_, priority, to_link, LDOM,
	  parse_prio(page, &obj->prio, why))

CONFIGFS_ATTR(link_, priority);

static struct configfs_attribute *link_attrs[] = {
	&link_attr_priority,
	NULL,
};

static void link_release(struct config_item *item)
{
	struct dlb2_cfs_link *link = to_link(item);

	config_item_put(&link->queue->group.cg_item);
	kfree(link);
}

static struct configfs_item_operations link_item_ops = {
	.release = link_release,
};

static const struct config_item_type link_type = {
	.ct_item_ops = &link_item_ops,
	.ct_attrs = link_attrs,
	.ct_owner = THIS_MODULE,
};

static struct dlb2_cfs_queue *find_queue(struct dlb2_cfs_domain *dom,
					 const char *name)
{
	struct dlb2_cfs_queue *q;

	list_for_each_entry(q, &dom->queues, node)
		if (!strcmp(config_item_name(&q->group.cg_item), name))
			return q;
	return NULL;
}

static struct config_group *links_make(struct config_group *group,
				       const char *name)
{
	struct dlb2_cfs_port *port = container_of(group, struct dlb2_cfs_port,
						  links_group);
	struct dlb2_cfs_domain *dom = port->dom;
	struct dlb2_cfs_link *link;
	struct dlb2_cfs_queue *q;
	const char *why = NULL;
	int ret = 0;

	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&dom->dev->fn->lock);
	q = find_queue(dom, name);
	if (!q) {
		ret = -ENOENT;
		why = "the domain has no queue of that name";
	} else if (q->desc.ldb != port->desc.ldb) {
		ret = -EINVAL;
		why = port->desc.ldb ? "a load-balanced port links only load-balanced queues" :
				       "a directed port links only a directed queue";
	} else if (port->num_links >= (port->desc.ldb ? DLB2_MAX_LINKS : 1)) {
		ret = -ENOSPC;
		why = port->desc.ldb ? "the port has 8 links, the most it may have" :
				       "a directed port has one link";
	} else if (dom->hw && !port->desc.ldb) {
		ret = -EBUSY;
		why = "a directed port's link cannot change while the domain is enabled";
	} else if (dom->hw) {
		ret = dlb2_domain_link(dom->hw, port->index, q->index, 0);
		if (ret == -EBUSY)
			why = "QEs of the queue are scheduled and not completed: retry";
		else if (ret == -ENOSPC)
			why = "every QID slot of the port is taken (unmaps pending)";
		else
			why = "the hardware refused the link";
	}
	if (ret) {
		refused(dom->dev, &group->cg_item, ret, "mkdir %s: %s", name,
			why);
		mutex_unlock(&dom->dev->fn->lock);
		kfree(link);
		return ERR_PTR(ret);
	}
	link->port = port;
	link->queue = q;
	config_item_get(&q->group.cg_item);
	list_add_tail(&link->node, &port->links);
	port->num_links++;
	mutex_unlock(&dom->dev->fn->lock);
	config_group_init_type_name(&link->group, name, &link_type);
	return &link->group;
}

static void links_drop(struct config_group *group, struct config_item *item)
{
	struct dlb2_cfs_link *link = to_link(item);
	struct dlb2_cfs_port *port = link->port;

	mutex_lock(&port->dom->dev->fn->lock);
	if (port->dom->hw && !link->queue->removed)
		dlb2_domain_unlink(port->dom->hw, port->index,
				   link->queue->index);
	list_del(&link->node);
	port->num_links--;
	mutex_unlock(&port->dom->dev->fn->lock);
	config_item_put(item);
}

static struct configfs_group_operations links_group_ops = {
	.make_group = links_make,
	.drop_item = links_drop,
};

static const struct config_item_type links_type = {
	.ct_group_ops = &links_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- ports ----------------------------------------------------------- */

static const char *const wait_words[] = { "poll", "interrupt" };

#define PDOM(p) ((p)->dom)

static int parse_cq_depth(const char *page, u32 *depth, char *why)
{
	u32 v;
	int ret = parse_u32(page, 1, 1024, &v, why);

	if (ret)
		return ret;
	if (!is_power_of_2(v)) {
		snprintf(why, DLB2_WHY_MAX, "not a power of two");
		return -EINVAL;
	}
	*depth = v;
	return 0;
}

static int parse_hist_list(const char *page, u32 *entries, char *why)
{
	u32 v;

	if (kstrtou32(page, 0, &v)) {
		snprintf(why, DLB2_WHY_MAX, "not a number");
		return -EINVAL;
	}
	if (v > DLB2_HIST_LIST_ENTRIES) {
		snprintf(why, DLB2_WHY_MAX, "not in 0..%u",
			 DLB2_HIST_LIST_ENTRIES);
		return -ERANGE;
	}
	*entries = v;
	return 0;
}

static int parse_wait(const char *page, bool *intr, char *why)
{
	int i = parse_word(page, wait_words, ARRAY_SIZE(wait_words), why);

	if (i < 0)
		return i;
	*intr = i == 1;
	return 0;
}

static int parse_cos(const char *page, int *cos, char *why)
{
	u32 v;
	int ret;

	if (sysfs_streq(page, "any")) {
		*cos = DLB2_ANY_COS;
		return 0;
	}
	ret = parse_u32(page, 0, DLB2_NUM_COS - 1, &v, why);
	if (!ret)
		*cos = v;
	else
		snprintf(why, DLB2_WHY_MAX, "not any or 0..%u",
			 DLB2_NUM_COS - 1);
	return ret;
}

static ssize_t port_type_show(struct config_item *item, char *page)
{
	return sprintf(page, "%s\n", to_port(item)->desc.ldb ? "ldb" : "dir");
}

/* A port with links keeps its type: the links were checked against it. */
static int set_port_type(struct dlb2_cfs_port *port, const char *page,
			 char *why)
{
	bool ldb;
	int ret = parse_type(page, &ldb, why);

	if (ret)
		return ret;
	if (port->num_links && ldb != port->desc.ldb) {
		snprintf(why, DLB2_WHY_MAX,
			 "the port has links: remove them first");
		return -EBUSY;
	}
	port->desc.ldb = ldb;
	return 0;
}

CFS_STORE(port_, type, to_port, PDOM,
	  set_port_type(obj, page, why))

static ssize_t port_cq_depth_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_port(item)->desc.cq_depth);
}

CFS_STORE(port_, cq_depth, to_port, PDOM,
	  parse_cq_depth(page, &obj->desc.cq_depth, why))

static ssize_t port_history_list_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_port(item)->desc.hist_list);
}

CFS_STORE(port_, history_list, to_port, PDOM,
	  parse_hist_list(page, &obj->desc.hist_list, why))

static ssize_t port_wait_mode_show(struct config_item *item, char *page)
{
	return sprintf(page, "%s\n", wait_words[to_port(item)->desc.intr]);
}

CFS_STORE(port_, wait_mode, to_port, PDOM,
	  parse_wait(page, &obj->desc.intr, why))

static ssize_t port_cos_show(struct config_item *item, char *page)
{
	int cos = to_port(item)->desc.cos;

	if (cos == DLB2_ANY_COS)
		return sprintf(page, "any\n");
	return sprintf(page, "%d\n", cos);
}

CFS_STORE(port_, cos, to_port, PDOM,
	  parse_cos(page, &obj->desc.cos, why))

static ssize_t port_id_show(struct config_item *item, char *page)
{
	struct dlb2_cfs_port *port = to_port(item);
	int id = -1;

	mutex_lock(&port->dom->dev->fn->lock);
	if (port->dom->hw)
		id = port->dom->hw->ports[port->index]->hw.id;
	mutex_unlock(&port->dom->dev->fn->lock);
	return sprintf(page, "%d\n", id);
}

CONFIGFS_ATTR(port_, type);
CONFIGFS_ATTR(port_, cq_depth);
CONFIGFS_ATTR(port_, history_list);
CONFIGFS_ATTR(port_, wait_mode);
CONFIGFS_ATTR(port_, cos);
CONFIGFS_ATTR_RO(port_, id);

static struct configfs_attribute *port_attrs[] = {
	&port_attr_type,
	&port_attr_cq_depth,
	&port_attr_history_list,
	&port_attr_wait_mode,
	&port_attr_cos,
	&port_attr_id,
	NULL,
};

static void port_release(struct config_item *item)
{
	kfree(to_port(item));
}

static struct configfs_item_operations port_item_ops = {
	.release = port_release,
};

static const struct config_item_type port_type = {
	.ct_item_ops = &port_item_ops,
	.ct_attrs = port_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *ports_make(struct config_group *group,
				       const char *name)
{
	struct dlb2_cfs_domain *dom = container_of(group, struct dlb2_cfs_domain,
						   ports_group);
	struct dlb2_cfs_port *port;
	int ret = check_name(name);

	if (ret) {
		mutex_lock(&dom->dev->fn->lock);
		refused(dom->dev, &group->cg_item, ret, "mkdir %.40s: " NAME_RULE,
			name);
		mutex_unlock(&dom->dev->fn->lock);
		return ERR_PTR(ret);
	}
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return ERR_PTR(-ENOMEM);
	port->dom = dom;
	INIT_LIST_HEAD(&port->links);
	port->desc = (struct dlb2_port_desc){
		.ldb = true,
		.cq_depth = 64,
		.cos = DLB2_ANY_COS,
	};
	mutex_lock(&dom->dev->fn->lock);
	if (dom->hw) {
		refused(dom->dev, &group->cg_item, -EBUSY,
			"mkdir %s: the domain is enabled", name);
		mutex_unlock(&dom->dev->fn->lock);
		kfree(port);
		return ERR_PTR(-EBUSY);
	}
	/* After the check: it allocates a long name, which kfree(port) leaks. */
	config_group_init_type_name(&port->group, name, &port_type);
	config_group_init_type_name(&port->links_group, "links", &links_type);
	configfs_add_default_group(&port->links_group, &port->group);
	list_add_tail(&port->node, &dom->ports);
	mutex_unlock(&dom->dev->fn->lock);
	return &port->group;
}

static void ports_drop(struct config_group *group, struct config_item *item)
{
	struct dlb2_cfs_port *port = to_port(item);

	mutex_lock(&port->dom->dev->fn->lock);
	list_del(&port->node);
	mutex_unlock(&port->dom->dev->fn->lock);
	config_item_put(item);
}

static struct configfs_group_operations ports_group_ops = {
	.make_group = ports_make,
	.drop_item = ports_drop,
};

static const struct config_item_type ports_type = {
	.ct_group_ops = &ports_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- domains --------------------------------------------------------- */

#define DDOM(d) (d)

static ssize_t domain_ldb_credits_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_dom(item)->ldb_credits);
}

static ssize_t domain_dir_credits_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_dom(item)->dir_credits);
}

/*
 * Credit limits depend on the version of the device behind the domain
 * (device lock held: dom->dev->fn->dlb2 is stable).
 */
static int parse_credits(struct dlb2_cfs_domain *dom, const char *page,
			 bool ldb, u32 *val, char *why)
{
	struct dlb2 *dlb2 = dom->dev->fn->dlb2;
	bool v2_5 = dlb2 ? dlb2->ver == DLB2_HW_V2_5 : true;
	u32 max = v2_5 ? 16384 : ldb ? 8192 : 4096;

	return parse_u32(page, 0, max, val, why);
}

CFS_STORE(domain_, ldb_credits, to_dom, DDOM,
	  parse_credits(obj, page, true, &obj->ldb_credits, why))

CFS_STORE(domain_, dir_credits, to_dom, DDOM,
	  parse_credits(obj, page, false, &obj->dir_credits, why))

static ssize_t domain_status_show(struct config_item *item, char *page)
{
	struct dlb2_cfs_domain *dom = to_dom(item);
	ssize_t ret;

	mutex_lock(&dom->dev->fn->lock);
	ret = sprintf(page, "%s\n", dom->status);
	mutex_unlock(&dom->dev->fn->lock);
	return ret;
}

static ssize_t domain_id_show(struct config_item *item, char *page)
{
	struct dlb2_cfs_domain *dom = to_dom(item);
	int id;

	mutex_lock(&dom->dev->fn->lock);
	id = dom->hw ? (int)dom->hw->res.id : -1;
	mutex_unlock(&dom->dev->fn->lock);
	return sprintf(page, "%d\n", id);
}

static ssize_t domain_enable_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", !!READ_ONCE(to_dom(item)->hw));
}

/*
 * The items of an enabled domain that rmdir must not remove: its queues, its
 * ports and the links of its directed ports.  @fn is called on each in this
 * order until it returns non-zero, which is returned.
 */
static int walk_held_items(struct dlb2_cfs_domain *dom,
			   int (*fn)(struct config_item *item, void *arg),
			   void *arg)
{
	struct dlb2_cfs_queue *q;
	struct dlb2_cfs_port *p;
	struct dlb2_cfs_link *l;
	int ret;

	list_for_each_entry(q, &dom->queues, node) {
		ret = fn(&q->group.cg_item, arg);
		if (ret)
			return ret;
	}
	list_for_each_entry(p, &dom->ports, node) {
		ret = fn(&p->group.cg_item, arg);
		if (ret)
			return ret;
		if (p->desc.ldb)
			continue;
		list_for_each_entry(l, &p->links, node) {
			ret = fn(&l->group.cg_item, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int depend_one(struct config_item *item, void *failed)
{
	int ret = configfs_depend_item_unlocked(&dlb2_subsys, item);

	if (ret)
		*(struct config_item **)failed = item;
	return ret;
}

/* Undepend each item up to @arg (exclusive; NULL: all); 1 stops the walk. */
static int undepend_one(struct config_item *item, void *stop)
{
	if (item == stop)
		return 1;
	configfs_undepend_item_unlocked(item);
	return 0;
}

/*
 * Hold the items of a domain being enabled.  Called with dlb2_subsys.su_mutex
 * held, so that no item of the lists is between make_group() and its link
 * into the tree, or between its unlink and drop_item().  An item that a
 * racing mkdir is still creating or a racing rmdir is dropping cannot be
 * held: every item held so far is let go and -EBUSY returned.
 */
static int hold_items(struct dlb2_cfs_domain *dom)
{
	struct config_item *failed = NULL;

	if (!walk_held_items(dom, depend_one, &failed))
		return 0;
	walk_held_items(dom, undepend_one, failed);
	return -EBUSY;
}

static void release_items(struct dlb2_cfs_domain *dom)
{
	walk_held_items(dom, undepend_one, NULL);
}

/*
 * First step of disabling an enabled domain, device lock held: its items
 * are let go, it is disabled as far as configfs is concerned (it can be
 * changed and enabled again at once) and its hardware domain is revoked.
 * Return: the hardware domain, for dlb2_domain_release() once the caller
 * has dropped the device lock (and su_mutex).
 */
static struct dlb2_domain *domain_stop(struct dlb2_cfs_domain *dom,
				       const char *status)
{
	struct dlb2_domain *hw = dom->hw;

	lockdep_assert_held(&dom->dev->fn->lock);
	release_items(dom);
	dlb2_domain_revoke(hw);
	WRITE_ONCE(dom->hw, NULL);
	strscpy(dom->status, status, sizeof(dom->status));
	trace_dlb2_domain_disable(dom->dev->fn->pci_name, hw->name, hw->res.id,
				  dom->status);
	return hw;
}

/* The description of a domain, for domain.c; NULL on -ENOMEM. */
static struct dlb2_domain_desc *build_desc(struct dlb2_cfs_domain *dom)
{
	struct dlb2_domain_desc *desc;
	struct dlb2_cfs_queue *q;
	struct dlb2_cfs_port *p;
	struct dlb2_cfs_link *l;
	unsigned int i = 0;

	desc = kzalloc(sizeof(*desc), GFP_KERNEL);
	if (!desc)
		return NULL;
	desc->name = config_item_name(&dom->group.cg_item);
	desc->ldb_credits = dom->ldb_credits;
	desc->dir_credits = dom->dir_credits;
	list_for_each_entry(q, &dom->queues, node)
		desc->num_queues++;
	list_for_each_entry(p, &dom->ports, node)
		desc->num_ports++;
	desc->queues = kcalloc(desc->num_queues, sizeof(*desc->queues),
			       GFP_KERNEL);
	desc->ports = kcalloc(desc->num_ports, sizeof(*desc->ports),
			      GFP_KERNEL);
	if ((desc->num_queues && !desc->queues) ||
	    (desc->num_ports && !desc->ports)) {
		kfree(desc->queues);
		kfree(desc->ports);
		kfree(desc);
		return NULL;
	}
	list_for_each_entry(q, &dom->queues, node) {
		q->index = i;
		desc->queues[i] = q->desc;
		desc->queues[i].name = config_item_name(&q->group.cg_item);
		/* An ordered queue without a size gets the smallest. */
		if (q->desc.ldb && q->desc.sched == DLB2_Q_ORDERED &&
		    !q->desc.sns)
			desc->queues[i].sns = 64;
		i++;
	}
	i = 0;
	list_for_each_entry(p, &dom->ports, node) {
		struct dlb2_port_desc *d = &desc->ports[i];

		p->index = i++;
		*d = p->desc;
		d->name = config_item_name(&p->group.cg_item);
		d->num_links = 0;
		list_for_each_entry(l, &p->links, node) {
			if (l->queue->removed)
				continue;
			d->link_queue[d->num_links] = l->queue->index;
			d->link_prio[d->num_links++] = l->prio;
		}
	}
	return desc;
}

static void free_desc(struct dlb2_domain_desc *desc)
{
	kfree(desc->queues);
	kfree(desc->ports);
	kfree(desc);
}

static int domain_enable(struct dlb2_cfs_domain *dom)
{
	struct dlb2_domain_desc *desc;
	struct dlb2_domain *hw;
	char why[DLB2_STATUS_MAX - 8];

	lockdep_assert_held(&dlb2_subsys.su_mutex);
	lockdep_assert_held(&dom->dev->fn->lock);
	if (!dom->dev->fn->dlb2) {
		strscpy(dom->status, "error: the device is not bound",
			sizeof(dom->status));
		return -ENODEV;
	}
	if (dom->dev->fn->dlb2->state != DLB2_STATE_READY) {
		bool failed = dom->dev->fn->dlb2->state == DLB2_STATE_FAILED;

		strscpy(dom->status, failed ?
			"error: the device did not come back from a reset" :
			"error: the device is being reset",
			sizeof(dom->status));
		return failed ? -EIO : -EBUSY;
	}
	if (hold_items(dom)) {
		strscpy(dom->status,
			"error: a queue, port or link is being created or removed",
			sizeof(dom->status));
		return -EBUSY;
	}
	desc = build_desc(dom);
	if (!desc) {
		release_items(dom);
		return -ENOMEM;
	}
	why[0] = '\0';
	hw = dlb2_domain_enable(dom->dev->fn->dlb2, desc, why, sizeof(why));
	free_desc(desc);
	if (IS_ERR(hw)) {
		release_items(dom);
		snprintf(dom->status, sizeof(dom->status), "error: %s", why);
		return PTR_ERR(hw);
	}
	WRITE_ONCE(dom->hw, hw);
	strscpy(dom->status, "enabled", sizeof(dom->status));
	return 0;
}

static ssize_t domain_enable_store(struct config_item *item, const char *page,
				   size_t count)
{
	struct dlb2_cfs_domain *dom = to_dom(item);
	struct dlb2_domain *hw = NULL;
	char val[33];
	bool on;
	int ret = 0;

	if (kstrtobool(page, &on)) {
		mutex_lock(&dom->dev->fn->lock);
		refused(dom->dev, item, -EINVAL, "enable \"%s\": not a boolean",
			first_line(page, val, sizeof(val)));
		mutex_unlock(&dom->dev->fn->lock);
		return -EINVAL;
	}
	/* Before the device lock, as in mkdir and rmdir: see hold_items(). */
	mutex_lock(&dlb2_subsys.su_mutex);
	mutex_lock(&dom->dev->fn->lock);
	if (on && !dom->hw) {
		ret = domain_enable(dom);
		trace_dlb2_domain_enable(dom->dev->fn->pci_name,
					 config_item_name(item),
					 ret ? -1 : (int)dom->hw->res.id, ret,
					 dom->status);
		if (ret == -ENOMEM)
			refused(dom->dev, item, ret, "enable: out of memory");
		else if (ret)
			refused(dom->dev, item, ret, "enable: %s", dom->status);
	} else if (!on && dom->hw) {
		hw = domain_stop(dom, "disabled");
	}
	mutex_unlock(&dom->dev->fn->lock);
	mutex_unlock(&dlb2_subsys.su_mutex);
	/* The holders' callbacks, then the reset, with no lock held. */
	if (hw)
		dlb2_domain_release(hw);
	return ret ? ret : count;
}

CONFIGFS_ATTR(domain_, ldb_credits);
CONFIGFS_ATTR(domain_, dir_credits);
CONFIGFS_ATTR(domain_, enable);
CONFIGFS_ATTR_RO(domain_, status);
CONFIGFS_ATTR_RO(domain_, id);

static struct configfs_attribute *domain_attrs[] = {
	&domain_attr_ldb_credits,
	&domain_attr_dir_credits,
	&domain_attr_enable,
	&domain_attr_status,
	&domain_attr_id,
	NULL,
};

static void domain_release(struct config_item *item)
{
	kfree(to_dom(item));
}

static struct configfs_item_operations domain_item_ops = {
	.release = domain_release,
};

static const struct config_item_type domain_type = {
	.ct_item_ops = &domain_item_ops,
	.ct_attrs = domain_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *domains_make(struct config_group *group,
					 const char *name)
{
	struct dlb2_cfs_dev *dev = container_of(group, struct dlb2_cfs_dev,
						group);
	struct dlb2_cfs_domain *dom;
	int ret = check_name(name);

	if (ret) {
		mutex_lock(&dev->fn->lock);
		refused(dev, &group->cg_item, ret, "mkdir %.40s: " NAME_RULE,
			name);
		mutex_unlock(&dev->fn->lock);
		return ERR_PTR(ret);
	}
	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		return ERR_PTR(-ENOMEM);
	dom->dev = dev;
	INIT_LIST_HEAD(&dom->queues);
	INIT_LIST_HEAD(&dom->ports);
	strscpy(dom->status, "disabled", sizeof(dom->status));
	config_group_init_type_name(&dom->group, name, &domain_type);
	config_group_init_type_name(&dom->queues_group, "queues", &queues_type);
	config_group_init_type_name(&dom->ports_group, "ports", &ports_type);
	configfs_add_default_group(&dom->queues_group, &dom->group);
	configfs_add_default_group(&dom->ports_group, &dom->group);
	mutex_lock(&dev->fn->lock);
	list_add_tail(&dom->node, &dev->domains);
	mutex_unlock(&dev->fn->lock);
	return &dom->group;
}

static void domains_drop(struct config_group *group, struct config_item *item)
{
	struct dlb2_cfs_domain *dom = to_dom(item);
	struct dlb2_domain *hw = NULL;

	mutex_lock(&dom->dev->fn->lock);
	if (dom->hw)
		hw = domain_stop(dom, "disabled");
	list_del(&dom->node);
	mutex_unlock(&dom->dev->fn->lock);
	/*
	 * Not reached with holders: an enabled domain has ports, which it
	 * holds (depend), so rmdir of it fails with ENOTEMPTY and no holder's
	 * callback runs here under su_mutex.
	 */
	if (hw)
		dlb2_domain_release(hw);
	config_item_put(item);
}

static struct configfs_group_operations dev_group_ops = {
	.make_group = domains_make,
	.drop_item = domains_drop,
};

static const struct config_item_type dev_type = {
	.ct_group_ops = &dev_group_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type root_type = {
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem dlb2_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "dlb2",
			.ci_type = &root_type,
		},
	},
};

/**
 * dlb2_configfs_attach() - give a probed device its configfs directory
 * @dlb2: the device; its function not yet bound (dlb2_function_bind())
 *
 * Makes /sys/kernel/config/dlb2/dlb2_<N> at the first probe of the
 * function; later probes find it.
 *
 * Return: 0 or a negative errno.
 */
int dlb2_configfs_attach(struct dlb2 *dlb2)
{
	struct dlb2_function *fn = dlb2->fn;
	struct dlb2_cfs_dev *dev;
	int ret;

	/* Probes of one function do not overlap: nothing else stores at N. */
	if (xa_load(&dlb2_cfs_devs, fn->id))
		return 0;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->fn = fn;
	INIT_LIST_HEAD(&dev->domains);
	config_group_init_type_name(&dev->group, "", &dev_type);
	ret = config_item_set_name(&dev->group.cg_item, "dlb2_%d", fn->id);
	if (ret)
		goto err_free;
	ret = xa_insert(&dlb2_cfs_devs, fn->id, dev, GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = configfs_register_group(&dlb2_subsys.su_group, &dev->group);
	if (ret) {
		xa_erase(&dlb2_cfs_devs, fn->id);
		goto err_free;
	}
	return 0;

err_free:
	kfree(dev);
	return ret;
}

/**
 * dlb2_configfs_stop() - disable a device's domains before it goes or resets
 * @dlb2: the device; the caller made sure no domain can be enabled on it
 *	  any more (dlb2_function_unbind(), or dlb2.state not READY)
 * @status: what its domains read from now on, e.g. "error: device removed"
 *
 * Each enabled domain is revoked under the device lock, then released with
 * no lock held.  Domains that other threads disable at the same time may
 * still be being released when this returns: dlb2_domains_wait_released().
 */
void dlb2_configfs_stop(struct dlb2 *dlb2, const char *status)
{
	struct dlb2_cfs_dev *dev = xa_load(&dlb2_cfs_devs, dlb2->fn->id);
	struct dlb2_domain *hw, *tmp;
	struct dlb2_cfs_domain *dom;
	LIST_HEAD(revoked);

	mutex_lock(&dlb2->fn->lock);
	list_for_each_entry(dom, &dev->domains, node) {
		if (!dom->hw)
			continue;
		hw = domain_stop(dom, status);
		list_add_tail(&hw->release_node, &revoked);
	}
	mutex_unlock(&dlb2->fn->lock);
	list_for_each_entry_safe(hw, tmp, &revoked, release_node) {
		list_del(&hw->release_node);
		dlb2_domain_release(hw);
	}
}

/**
 * dlb2_configfs_dump() - the configfs domains of a device, for debugfs
 * @dlb2: the device; its device lock held
 * @m: where to print "configfs <domain> id=<id> status=\"<status>\"" lines
 */
void dlb2_configfs_dump(struct dlb2 *dlb2, struct seq_file *m)
{
	struct dlb2_cfs_domain *dom;
	struct dlb2_cfs_dev *dev;

	lockdep_assert_held(&dlb2->fn->lock);
	dev = xa_load(&dlb2_cfs_devs, dlb2->fn->id);
	list_for_each_entry(dom, &dev->domains, node)
		seq_printf(m, "configfs %s id=%d status=\"%s\"\n",
			   config_item_name(&dom->group.cg_item),
			   dom->hw ? (int)dom->hw->res.id : -1, dom->status);
}

int dlb2_configfs_init(void)
{
	config_group_init(&dlb2_subsys.su_group);
	mutex_init(&dlb2_subsys.su_mutex);
	return configfs_register_subsystem(&dlb2_subsys);
}

void dlb2_configfs_exit(void)
{
	struct dlb2_cfs_dev *dev;
	unsigned long id;

	/* configfs holds the module while any domain directory exists. */
	xa_for_each(&dlb2_cfs_devs, id, dev) {
		xa_erase(&dlb2_cfs_devs, id);
		configfs_unregister_group(&dev->group);
		kfree(dev);
	}
	configfs_unregister_subsystem(&dlb2_subsys);
}
