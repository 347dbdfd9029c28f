// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5 PF driver: sysfs.
 *
 * Attribute groups of the PCI device (version, resources, IOMMU mode,
 * alarms, p2p_override) and, for each enabled domain, a device of class
 * dlb2_domain below the PCI device with one child device per queue and
 * port, each carrying its statistics as the attribute groups of its
 * device_type.  Documented in Documentation/ABI/testing/sysfs-driver-dlb2.
 *
 * The statistics devices are unregistered (device_del(), which waits for
 * running show()s) before their domain is freed, so show() needs no lock.
 */
#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "domain.h"
#include "hw.h"

static ssize_t hw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", dlb2_ver_str(dev_get_drvdata(dev)));
}
static DEVICE_ATTR_RO(hw_version);

static ssize_t dev_id_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct dlb2 *dlb2 = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", dlb2->fn->id);
}
static DEVICE_ATTR_RO(dev_id);

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	static const char *const names[] = {
		[DLB2_STATE_READY] = "ready",
		[DLB2_STATE_RESETTING] = "resetting",
		[DLB2_STATE_FAILED] = "failed",
	};
	struct dlb2 *dlb2 = dev_get_drvdata(dev);
	enum dlb2_state state;

	mutex_lock(&dlb2->fn->lock);
	state = dlb2->state;
	mutex_unlock(&dlb2->fn->lock);
	return sysfs_emit(buf, "%s\n", names[state]);
}
static DEVICE_ATTR_RO(state);

static ssize_t iommu_mode_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);
	const char *mode = "none";

	if (domain && domain->type == IOMMU_DOMAIN_IDENTITY)
		mode = "identity";
	else if (domain && (domain->type & __IOMMU_DOMAIN_DMA_API))
		mode = "dma";
	else if (domain)
		mode = "unmanaged";
	return sysfs_emit(buf, "%s\n", mode);
}
static DEVICE_ATTR_RO(iommu_mode);

static ssize_t ingress_alarms_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct dlb2 *dlb2 = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", !READ_ONCE(dlb2->ingress_alarms_off) &&
					!READ_ONCE(dlb2->alarms_stops));
}

static ssize_t ingress_alarms_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	struct dlb2 *dlb2 = dev_get_drvdata(dev);
	ssize_t ret = count;
	bool on;

	if (kstrtobool(buf, &on) || !on)
		return -EINVAL;
	/* Not while a reset or a recovery owns the registers. */
	mutex_lock(&dlb2->fn->lock);
	if (dlb2->state == DLB2_STATE_READY)
		dlb2_alarms_enable(dlb2);
	else
		ret = -EBUSY;
	mutex_unlock(&dlb2->fn->lock);
	return ret;
}
static DEVICE_ATTR_RW(ingress_alarms);

static ssize_t p2p_override_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct dlb2 *dlb2 = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(dlb2->p2p_override));
}

static ssize_t p2p_override_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct dlb2 *dlb2 = dev_get_drvdata(dev);
	bool on;

	if (kstrtobool(buf, &on))
		return -EINVAL;
	WRITE_ONCE(dlb2->p2p_override, on);
	return count;
}
static DEVICE_ATTR_RW(p2p_override);

static struct attribute *dlb2_dev_attrs[] = {
	&dev_attr_hw_version.attr,
	&dev_attr_dev_id.attr,
	&dev_attr_state.attr,
	&dev_attr_iommu_mode.attr,
	&dev_attr_ingress_alarms.attr,
	&dev_attr_p2p_override.attr,
	NULL,
};

static const struct attribute_group dlb2_dev_group = {
	.attrs = dlb2_dev_attrs,
};

/* ---- total_resources/ and avail_resources/ ---------------------------- */

enum dlb2_res_field {
	RES_DOMAINS, RES_LDB_QUEUES, RES_LDB_PORTS, RES_COS0, RES_COS1,
	RES_COS2, RES_COS3, RES_DIR_PORTS, RES_LDB_CREDITS, RES_DIR_CREDITS,
	RES_HIST_LIST, RES_ATOMIC, RES_MAX_CTG_HIST_LIST,
};

static u32 res_value(const struct dlb2_resources *r, enum dlb2_res_field f)
{
	unsigned int cos = f - RES_COS0;

	switch (f) {
	case RES_DOMAINS:
		return bitmap_weight(r->domains, DLB2_MAX_DOMAINS);
	case RES_LDB_QUEUES:
		return bitmap_weight(r->ldb_queues, DLB2_MAX_LDB_QUEUES);
	case RES_LDB_PORTS:
		return bitmap_weight(r->ldb_ports, DLB2_MAX_LDB_PORTS);
	case RES_COS0 ... RES_COS3:
		return bitmap_weight(r->ldb_ports, 16 * (cos + 1)) -
		       bitmap_weight(r->ldb_ports, 16 * cos);
	case RES_DIR_PORTS:
		return bitmap_weight(r->dir_ports, DLB2_MAX_DIR_PORTS);
	case RES_LDB_CREDITS:
		return r->ldb_credits;
	case RES_DIR_CREDITS:
		return r->dir_credits;
	case RES_HIST_LIST:
		return bitmap_weight(r->hist_list, DLB2_HIST_LIST_ENTRIES);
	case RES_ATOMIC:
		return r->atomic_inflights;
	case RES_MAX_CTG_HIST_LIST:
		return dlb2_hist_list_max_free(r);
	}
	return 0;
}

struct dlb2_res_attr {
	struct device_attribute attr;
	enum dlb2_res_field field;
	bool total;	/* total_resources/, else avail_resources/ */
};

static ssize_t res_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	struct dlb2_res_attr *ra = container_of(attr, struct dlb2_res_attr, attr);
	struct dlb2 *dlb2 = dev_get_drvdata(dev);
	struct dlb2_resources *total;
	u32 val;

	if (!ra->total) {
		mutex_lock(&dlb2->fn->lock);
		val = res_value(&dlb2->res, ra->field);
		mutex_unlock(&dlb2->fn->lock);
		return sysfs_emit(buf, "%u\n", val);
	}
	total = kmalloc(sizeof(*total), GFP_KERNEL);
	if (!total)
		return -ENOMEM;
	dlb2_resources_init(total, dlb2->ver == DLB2_HW_V2_5);
	val = res_value(total, ra->field);
	kfree(total);
	return sysfs_emit(buf, "%u\n", val);
}

#define RES(_name, _field) {						\
	.attr = __ATTR(_name, 0444, res_show, NULL),			\
	.field = _field,						\
}

#define RES_TABLE {							\
	RES(domains, RES_DOMAINS),					\
	RES(ldb_queues, RES_LDB_QUEUES),				\
	RES(ldb_ports, RES_LDB_PORTS),					\
	RES(cos0_ldb_ports, RES_COS0),					\
	RES(cos1_ldb_ports, RES_COS1),					\
	RES(cos2_ldb_ports, RES_COS2),					\
	RES(cos3_ldb_ports, RES_COS3),					\
	RES(dir_ports, RES_DIR_PORTS),					\
	RES(ldb_credits, RES_LDB_CREDITS),				\
	RES(dir_credits, RES_DIR_CREDITS),				\
	RES(hist_list_entries, RES_HIST_LIST),				\
	RES(atomic_inflights, RES_ATOMIC),				\
	RES(max_ctg_hist_list_entries, RES_MAX_CTG_HIST_LIST),		\
}

static struct dlb2_res_attr total_res[] = RES_TABLE;
static struct dlb2_res_attr avail_res[] = RES_TABLE;

/* Filled by dlb2_sysfs_init() from the tables. */
static struct attribute *total_attrs[ARRAY_SIZE(total_res) + 1];
static struct attribute *avail_attrs[ARRAY_SIZE(avail_res) + 1];

static const struct attribute_group total_group = {
	.name = "total_resources",
	.attrs = total_attrs,
};

static const struct attribute_group avail_group = {
	.name = "avail_resources",
	.attrs = avail_attrs,
};

/* ---- alarms/ ---------------------------------------------------------- */

struct dlb2_alarm_attr {
	struct device_attribute attr;
	enum dlb2_alarm kind;
};

static ssize_t alarm_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct dlb2_alarm_attr *aa = container_of(attr, struct dlb2_alarm_attr,
						  attr);
	struct dlb2 *dlb2 = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&dlb2->alarms[aa->kind]));
}

#define ALARM_ATTR(name, k)						\
	static struct dlb2_alarm_attr alarm_##name = {			\
		.attr = __ATTR(name, 0444, alarm_show, NULL),		\
		.kind = k,						\
	}

ALARM_ATTR(illegal_enqueue, DLB2_ALARM_ILLEGAL_ENQ);
ALARM_ATTR(excess_tokens, DLB2_ALARM_EXCESS_TOKENS);
ALARM_ATTR(illegal_hcw, DLB2_ALARM_ILLEGAL_HCW);
ALARM_ATTR(illegal_qid, DLB2_ALARM_ILLEGAL_QID);
ALARM_ATTR(disabled_qid, DLB2_ALARM_DISABLED_QID);
ALARM_ATTR(other, DLB2_ALARM_OTHER);

/* Indexed by kind, so that dlb2_alarm_name() can read the names. */
static struct attribute *alarm_attrs[DLB2_NUM_ALARMS + 1] = {
	[DLB2_ALARM_ILLEGAL_ENQ] = &alarm_illegal_enqueue.attr.attr,
	[DLB2_ALARM_EXCESS_TOKENS] = &alarm_excess_tokens.attr.attr,
	[DLB2_ALARM_ILLEGAL_HCW] = &alarm_illegal_hcw.attr.attr,
	[DLB2_ALARM_ILLEGAL_QID] = &alarm_illegal_qid.attr.attr,
	[DLB2_ALARM_DISABLED_QID] = &alarm_disabled_qid.attr.attr,
	[DLB2_ALARM_OTHER] = &alarm_other.attr.attr,
	[DLB2_NUM_ALARMS] = NULL,
};

/* The name of alarms/ file that counts @kind (debugfs shows the same). */
const char *dlb2_alarm_name(enum dlb2_alarm kind)
{
	return alarm_attrs[kind]->name;
}

static const struct attribute_group alarm_group = {
	.name = "alarms",
	.attrs = alarm_attrs,
};

const struct attribute_group *dlb2_dev_groups[] = {
	&dlb2_dev_group,
	&total_group,
	&avail_group,
	&alarm_group,
	NULL,
};

/* ---- dlb2_domain/dlb2_<N>.<domain>/{queue,port}.<name>/ --------------- */

/*
 * A statistics device: an enabled domain (class dlb2_domain, child of the
 * PCI device), or one of its queues or ports (child of the domain's).
 */
struct dlb2_stats_dev {
	struct device dev;
	struct dlb2_domain *dom;
	struct dlb2_queue *queue;
	struct dlb2_port *port;
};

#define to_stats(d) container_of(d, struct dlb2_stats_dev, dev)

static struct class *dlb2_domain_class;

static void stats_release(struct device *dev)
{
	kfree(to_stats(dev));
}

/* A statistic: file @file, value @expr of the stats' domain, queue or port. */
#define STAT(name, file, fmt, expr)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct dlb2_stats_dev *s = to_stats(dev);			\
									\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static struct device_attribute name##_attr = __ATTR(file, 0444, name##_show, NULL)

static u64 domain_sum(struct dlb2_domain *dom, bool enqueued)
{
	u64 sum = 0;
	unsigned int i;

	if (enqueued)
		for (i = 0; i < dom->hw.num_queues; i++)
			sum += dlb2_hw_queue_enqueued(dom->dlb2,
						      &dom->queues[i].hw);
	else
		for (i = 0; i < dom->hw.num_ports; i++)
			sum += dlb2_hw_cq_scheduled(dom->dlb2, &dom->ports[i]->hw);
	return sum;
}

static u64 domain_alarms(struct dlb2_domain *dom)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < dom->hw.num_ports; i++)
		sum += atomic64_read(&dom->ports[i]->alarms);
	return sum;
}

STAT(dom_name, name, "%s", s->dom->name);
STAT(dom_id, id, "%u", s->dom->res.id);
STAT(enqueued, enqueued, "%llu", domain_sum(s->dom, true));
STAT(dequeued, dequeued, "%llu", domain_sum(s->dom, false));
STAT(alarms, alarms, "%llu", domain_alarms(s->dom));

static struct attribute *domain_stat_attrs[] = {
	&dom_name_attr.attr,
	&dom_id_attr.attr,
	&enqueued_attr.attr,
	&dequeued_attr.attr,
	&alarms_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(domain_stat);

STAT(q_name, name, "%s", s->queue->name);
STAT(q_id, id, "%u", s->queue->hw.id);
STAT(q_type, type, "%s", s->queue->hw.desc.ldb ? "ldb" : "dir");
STAT(q_depth, depth, "%u", dlb2_hw_queue_depth(s->dom->dlb2, &s->queue->hw));
STAT(q_enqueued, enqueued, "%llu", dlb2_hw_queue_enqueued(s->dom->dlb2, &s->queue->hw));

static struct attribute *queue_stat_attrs[] = {
	&q_name_attr.attr,
	&q_id_attr.attr,
	&q_type_attr.attr,
	&q_depth_attr.attr,
	&q_enqueued_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(queue_stat);

STAT(p_name, name, "%s", s->port->name);
STAT(p_id, id, "%u", s->port->hw.id);
STAT(p_type, type, "%s", s->port->hw.ldb ? "ldb" : "dir");
STAT(p_cq_depth, cq_depth, "%u", s->port->hw.cq_depth);
STAT(p_dequeued, dequeued, "%llu", dlb2_hw_cq_scheduled(s->dom->dlb2, &s->port->hw));
STAT(p_outstanding, outstanding, "%u", dlb2_hw_cq_tokens(s->dom->dlb2, &s->port->hw));
STAT(p_inflight, inflight, "%u", dlb2_hw_cq_inflights(s->dom->dlb2, &s->port->hw));
STAT(p_released, released, "%lld", atomic64_read(&s->port->released));
STAT(p_alarms, alarms, "%lld", atomic64_read(&s->port->alarms));

static struct attribute *port_stat_attrs[] = {
	&p_name_attr.attr,
	&p_id_attr.attr,
	&p_type_attr.attr,
	&p_cq_depth_attr.attr,
	&p_dequeued_attr.attr,
	&p_outstanding_attr.attr,
	&p_inflight_attr.attr,
	&p_released_attr.attr,
	&p_alarms_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(port_stat);

static const struct device_type domain_type = {
	.name = "dlb2_domain",
	.groups = domain_stat_groups,
	.release = stats_release,
};

static const struct device_type queue_type = {
	.name = "dlb2_queue",
	.groups = queue_stat_groups,
	.release = stats_release,
};

static const struct device_type port_type = {
	.name = "dlb2_port",
	.groups = port_stat_groups,
	.release = stats_release,
};

/*
 * Register a statistics device of @type below @parent, its attributes
 * created with it (no window in which user space sees it without them).
 */
static struct device *stats_add(const struct device_type *type,
				struct device *parent, const char *prefix,
				const char *name, struct dlb2_domain *dom,
				struct dlb2_queue *queue,
				struct dlb2_port *port)
{
	struct dlb2_stats_dev *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return ERR_PTR(-ENOMEM);
	s->dom = dom;
	s->queue = queue;
	s->port = port;
	device_initialize(&s->dev);
	s->dev.type = type;
	s->dev.parent = parent;
	/* No power management of their own: no power/ directory. */
	device_set_pm_not_required(&s->dev);
	if (type == &domain_type)
		s->dev.class = dlb2_domain_class;
	ret = dev_set_name(&s->dev, "%s.%s", prefix, name);
	if (!ret)
		ret = device_add(&s->dev);
	if (ret) {
		put_device(&s->dev);
		return ERR_PTR(ret);
	}
	return &s->dev;
}

/*
 * device_del() removes the attributes and waits for the show()s that are
 * running (kernfs drains their active references); none starts afterwards,
 * so the domain may be freed then even if the struct device lives on.
 */
static void stats_del(struct device **dev)
{
	if (*dev)
		device_unregister(*dev);
	*dev = NULL;
}

/**
 * dlb2_domain_sysfs_add() - statistics devices of an enabled domain
 * @dom: the domain; the device lock held
 *
 * Registers the device dlb2_<N>.<domain> (class dlb2_domain) below the
 * PCI function and below it one device per queue (queue.<name>) and port
 * (port.<name>).  Their show()s take no lock: they are unregistered by
 * dlb2_domain_sysfs_del() before the domain is freed.
 *
 * Return: 0 or a negative errno (nothing left behind).
 */
int dlb2_domain_sysfs_add(struct dlb2_domain *dom)
{
	struct dlb2 *dlb2 = dom->dlb2;
	struct device *dev;
	char prefix[16];
	unsigned int i;

	lockdep_assert_held(&dlb2->fn->lock);
	snprintf(prefix, sizeof(prefix), "dlb2_%d", dlb2->fn->id);
	dev = stats_add(&domain_type, &dlb2->pdev->dev, prefix, dom->name, dom,
			NULL, NULL);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	dom->sysfs_dev = dev;
	for (i = 0; i < dom->hw.num_queues; i++) {
		struct dlb2_queue *q = &dom->queues[i];

		dev = stats_add(&queue_type, dom->sysfs_dev, "queue", q->name,
				dom, q, NULL);
		if (IS_ERR(dev))
			goto err;
		q->sysfs_dev = dev;
	}
	for (i = 0; i < dom->hw.num_ports; i++) {
		struct dlb2_port *p = dom->ports[i];

		dev = stats_add(&port_type, dom->sysfs_dev, "port", p->name,
				dom, NULL, p);
		if (IS_ERR(dev))
			goto err;
		p->sysfs_dev = dev;
	}
	return 0;

err:
	dlb2_domain_sysfs_del(dom);
	return PTR_ERR(dev);
}

/**
 * dlb2_domain_sysfs_del() - unregister them again, children first
 * @dom: the domain; the device lock held (the show()s take no lock)
 */
void dlb2_domain_sysfs_del(struct dlb2_domain *dom)
{
	unsigned int i;

	lockdep_assert_held(&dom->dlb2->fn->lock);
	for (i = 0; i < dom->hw.num_ports; i++)
		stats_del(&dom->ports[i]->sysfs_dev);
	for (i = 0; i < dom->hw.num_queues; i++)
		stats_del(&dom->queues[i].sysfs_dev);
	stats_del(&dom->sysfs_dev);
}

/**
 * dlb2_sysfs_init() - build the resource tables, register class dlb2_domain
 *
 * Return: 0 or a negative errno.
 */
int dlb2_sysfs_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(total_res); i++) {
		total_res[i].total = true;
		total_attrs[i] = &total_res[i].attr.attr;
		avail_attrs[i] = &avail_res[i].attr.attr;
	}
	dlb2_domain_class = dlb2_class_create("dlb2_domain");
	return PTR_ERR_OR_ZERO(dlb2_domain_class);
}

/**
 * dlb2_sysfs_exit() - unregister class dlb2_domain
 */
void dlb2_sysfs_exit(void)
{
	class_destroy(dlb2_domain_class);
}
