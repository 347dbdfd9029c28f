// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5 PF driver: sysfs.
 *
 * Device attributes (version, resources, IOMMU mode, alarms) and, under
 * domains/, one directory per enabled domain with its queues' and ports'
 * statistics.  Documented in Documentation/ABI/testing/sysfs-driver-dlb2.
 *
 * The statistics directories are removed (kobject_del(), which waits for
 * running show()s) before their domain is freed, so show() needs no lock.
 */
#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

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
	return sysfs_emit(buf, "%d\n", dlb2_cfs_dev_id(dev_get_drvdata(dev)));
}
static DEVICE_ATTR_RO(dev_id);

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

	return sysfs_emit(buf, "%d\n", !READ_ONCE(dlb2->ingress_alarms_off));
}

static ssize_t ingress_alarms_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	bool on;

	if (kstrtobool(buf, &on) || !on)
		return -EINVAL;
	dlb2_alarms_enable(dev_get_drvdata(dev));
	return count;
}
static DEVICE_ATTR_RW(ingress_alarms);

static struct attribute *dlb2_dev_attrs[] = {
	&dev_attr_hw_version.attr,
	&dev_attr_dev_id.attr,
	&dev_attr_iommu_mode.attr,
	&dev_attr_ingress_alarms.attr,
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
	bool total;
};

static ssize_t res_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	struct dlb2_res_attr *ra = container_of(attr, struct dlb2_res_attr, attr);
	struct dlb2 *dlb2 = dev_get_drvdata(dev);
	struct dlb2_resources *total;
	u32 val;

	if (!ra->total) {
		mutex_lock(&dlb2_mutex);
		val = res_value(&dlb2->res, ra->field);
		mutex_unlock(&dlb2_mutex);
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

#define RES_ATTR(kind, name, f, is_total)				\
	static struct dlb2_res_attr kind##_##name = {			\
		.attr = __ATTR(name, 0444, res_show, NULL),		\
		.field = f,						\
		.total = is_total,					\
	}

#define RES_ATTRS(kind, is_total)					\
	RES_ATTR(kind, domains, RES_DOMAINS, is_total);			\
	RES_ATTR(kind, ldb_queues, RES_LDB_QUEUES, is_total);		\
	RES_ATTR(kind, ldb_ports, RES_LDB_PORTS, is_total);		\
	RES_ATTR(kind, cos0_ldb_ports, RES_COS0, is_total);		\
	RES_ATTR(kind, cos1_ldb_ports, RES_COS1, is_total);		\
	RES_ATTR(kind, cos2_ldb_ports, RES_COS2, is_total);		\
	RES_ATTR(kind, cos3_ldb_ports, RES_COS3, is_total);		\
	RES_ATTR(kind, dir_ports, RES_DIR_PORTS, is_total);		\
	RES_ATTR(kind, ldb_credits, RES_LDB_CREDITS, is_total);		\
	RES_ATTR(kind, dir_credits, RES_DIR_CREDITS, is_total);		\
	RES_ATTR(kind, hist_list_entries, RES_HIST_LIST, is_total);	\
	RES_ATTR(kind, atomic_inflights, RES_ATOMIC, is_total);		\
	RES_ATTR(kind, max_ctg_hist_list_entries, RES_MAX_CTG_HIST_LIST, \
		 is_total)

RES_ATTRS(total, true);
RES_ATTRS(avail, false);

#define RES_LIST(kind)							\
	&kind##_domains.attr.attr, &kind##_ldb_queues.attr.attr,	\
	&kind##_ldb_ports.attr.attr, &kind##_cos0_ldb_ports.attr.attr,	\
	&kind##_cos1_ldb_ports.attr.attr,				\
	&kind##_cos2_ldb_ports.attr.attr,				\
	&kind##_cos3_ldb_ports.attr.attr, &kind##_dir_ports.attr.attr,	\
	&kind##_ldb_credits.attr.attr, &kind##_dir_credits.attr.attr,	\
	&kind##_hist_list_entries.attr.attr,				\
	&kind##_atomic_inflights.attr.attr,				\
	&kind##_max_ctg_hist_list_entries.attr.attr, NULL

static struct attribute *total_attrs[] = { RES_LIST(total) };
static struct attribute *avail_attrs[] = { RES_LIST(avail) };

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

static struct attribute *alarm_attrs[] = {
	&alarm_illegal_enqueue.attr.attr,
	&alarm_excess_tokens.attr.attr,
	&alarm_illegal_hcw.attr.attr,
	&alarm_illegal_qid.attr.attr,
	&alarm_disabled_qid.attr.attr,
	&alarm_other.attr.attr,
	NULL,
};

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

/* ---- domains/<domain>/{queues,ports}/<name>/ -------------------------- */

/* A statistics directory: exactly one of the pointers is set. */
struct dlb2_stats_kobj {
	struct kobject kobj;
	struct dlb2_domain *dom;
	struct dlb2_queue *queue;
	struct dlb2_port *port;
};

#define to_stats(k) container_of(k, struct dlb2_stats_kobj, kobj)

static void stats_release(struct kobject *kobj)
{
	kfree(to_stats(kobj));
}

/* A statistic: file @file of object @obj (the stats' @field), @expr. */
#define STAT(name, file, obj_type, field, fmt, expr)			\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	struct dlb2_stats_kobj *s = to_stats(kobj);			\
	obj_type *obj = s->field;					\
									\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static struct kobj_attribute name##_attr = __ATTR(file, 0444, name##_show, NULL)

static u64 domain_sum(struct dlb2_domain *dom, bool enqueued)
{
	u64 sum = 0;
	unsigned int i;

	if (enqueued)
		for (i = 0; i < dom->num_queues; i++)
			sum += dlb2_hw_queue_enqueued(dom->dlb2, &dom->queues[i]);
	else
		for (i = 0; i < dom->num_ports; i++)
			sum += dlb2_hw_cq_scheduled(dom->dlb2, dom->ports[i]);
	return sum;
}

static u64 domain_alarms(struct dlb2_domain *dom)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < dom->num_ports; i++)
		sum += atomic64_read(&dom->ports[i]->alarms);
	return sum;
}

STAT(dom_id, id, struct dlb2_domain, dom, "%u", obj->res.id);
STAT(enqueued, enqueued, struct dlb2_domain, dom, "%llu", domain_sum(obj, true));
STAT(dequeued, dequeued, struct dlb2_domain, dom, "%llu", domain_sum(obj, false));
STAT(alarms, alarms, struct dlb2_domain, dom, "%llu", domain_alarms(obj));

static struct attribute *domain_stat_attrs[] = {
	&dom_id_attr.attr,
	&enqueued_attr.attr,
	&dequeued_attr.attr,
	&alarms_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(domain_stat);

STAT(q_id, id, struct dlb2_queue, queue, "%u", obj->id);
STAT(q_type, type, struct dlb2_queue, queue, "%s", obj->ldb ? "ldb" : "dir");
STAT(q_depth, depth, struct dlb2_queue, queue, "%u",
     dlb2_hw_queue_depth(obj->dom->dlb2, obj));
STAT(q_enqueued, enqueued, struct dlb2_queue, queue, "%llu",
     dlb2_hw_queue_enqueued(obj->dom->dlb2, obj));

static struct attribute *queue_stat_attrs[] = {
	&q_id_attr.attr,
	&q_type_attr.attr,
	&q_depth_attr.attr,
	&q_enqueued_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(queue_stat);

STAT(p_id, id, struct dlb2_port, port, "%u", obj->id);
STAT(p_type, type, struct dlb2_port, port, "%s", obj->ldb ? "ldb" : "dir");
STAT(p_cq_depth, cq_depth, struct dlb2_port, port, "%u", obj->cq_depth);
STAT(p_dequeued, dequeued, struct dlb2_port, port, "%llu",
     dlb2_hw_cq_scheduled(s->dom->dlb2, obj));
STAT(p_outstanding, outstanding, struct dlb2_port, port, "%u",
     dlb2_hw_cq_tokens(s->dom->dlb2, obj));
STAT(p_inflight, inflight, struct dlb2_port, port, "%u",
     dlb2_hw_cq_inflights(s->dom->dlb2, obj));
STAT(p_released, released, struct dlb2_port, port, "%lld",
     atomic64_read(&obj->released));
STAT(p_alarms, alarms, struct dlb2_port, port, "%lld", atomic64_read(&obj->alarms));

static struct attribute *port_stat_attrs[] = {
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

static const struct kobj_type domain_ktype = {
	.release = stats_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = domain_stat_groups,
};

static const struct kobj_type queue_ktype = {
	.release = stats_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = queue_stat_groups,
};

static const struct kobj_type port_ktype = {
	.release = stats_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = port_stat_groups,
};

static struct kobject *stats_add(const struct kobj_type *ktype,
				 struct kobject *parent, const char *name,
				 struct dlb2_domain *dom,
				 struct dlb2_queue *queue,
				 struct dlb2_port *port)
{
	struct dlb2_stats_kobj *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return NULL;
	s->dom = dom;
	s->queue = queue;
	s->port = port;
	ret = kobject_init_and_add(&s->kobj, ktype, parent, "%s", name);
	if (ret) {
		kobject_put(&s->kobj);
		return NULL;
	}
	return &s->kobj;
}

static void stats_del(struct kobject **kobj)
{
	if (*kobj) {
		kobject_del(*kobj);
		kobject_put(*kobj);
	}
	*kobj = NULL;
}

/**
 * dlb2_domain_sysfs_add() - statistics directories of an enabled domain
 * @dom: the domain
 *
 * Return: 0 or -ENOMEM (nothing left behind).
 */
int dlb2_domain_sysfs_add(struct dlb2_domain *dom)
{
	unsigned int i;

	dom->kobj = stats_add(&domain_ktype, dom->dlb2->domains_kobj,
			      dom->name, dom, NULL, NULL);
	if (!dom->kobj)
		return -ENOMEM;
	dom->queues_kobj = kobject_create_and_add("queues", dom->kobj);
	dom->ports_kobj = kobject_create_and_add("ports", dom->kobj);
	if (!dom->queues_kobj || !dom->ports_kobj)
		goto err;
	for (i = 0; i < dom->num_queues; i++) {
		struct dlb2_queue *q = &dom->queues[i];

		q->kobj = stats_add(&queue_ktype, dom->queues_kobj, q->name,
				    NULL, q, NULL);
		if (!q->kobj)
			goto err;
	}
	for (i = 0; i < dom->num_ports; i++) {
		struct dlb2_port *p = dom->ports[i];

		p->kobj = stats_add(&port_ktype, dom->ports_kobj, p->name,
				    dom, NULL, p);
		if (!p->kobj)
			goto err;
	}
	return 0;

err:
	dlb2_domain_sysfs_del(dom);
	return -ENOMEM;
}

/**
 * dlb2_domain_sysfs_del() - remove them again
 * @dom: the domain
 */
void dlb2_domain_sysfs_del(struct dlb2_domain *dom)
{
	unsigned int i;

	for (i = 0; i < dom->num_ports; i++)
		stats_del(&dom->ports[i]->kobj);
	for (i = 0; i < dom->num_queues; i++)
		stats_del(&dom->queues[i].kobj);
	kobject_put(dom->ports_kobj);
	kobject_put(dom->queues_kobj);
	dom->ports_kobj = NULL;
	dom->queues_kobj = NULL;
	stats_del(&dom->kobj);
}
