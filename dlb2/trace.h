/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5: tracepoints (events/dlb2/ in tracefs).
 *
 * Domains being enabled, disabled and reset, alarms, and the P2P pins of
 * other kernel modules, their maps, unmaps and revocations.  The events
 * and their fields are documented in Documentation/admin-guide/dlb2.rst
 * ("What to send with a bug report"); each event takes scalars and
 * strings only, so that this header needs no dlb2 structure.  The trace
 * points are created in main.c.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dlb2

#if !defined(__DLB2_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define __DLB2_TRACE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

#include "dlb2.h"

/* 6.10: __assign_str() takes the field only (its source is __string()'s) */
#ifdef DLB2_HAVE_ASSIGN_STR_1
#define dlb2_assign_str(field, ...)	__assign_str(field)
#else
#define dlb2_assign_str(field, src)	__assign_str(field, src)
#endif

TRACE_DEFINE_ENUM(DLB2_ALARM_ILLEGAL_ENQ);
TRACE_DEFINE_ENUM(DLB2_ALARM_EXCESS_TOKENS);
TRACE_DEFINE_ENUM(DLB2_ALARM_ILLEGAL_HCW);
TRACE_DEFINE_ENUM(DLB2_ALARM_ILLEGAL_QID);
TRACE_DEFINE_ENUM(DLB2_ALARM_DISABLED_QID);
TRACE_DEFINE_ENUM(DLB2_ALARM_OTHER);

/* The names of sysfs's alarms/ files. */
#define dlb2_show_alarm(kind)						\
	__print_symbolic(kind,						\
			 { DLB2_ALARM_ILLEGAL_ENQ, "illegal_enqueue" },	\
			 { DLB2_ALARM_EXCESS_TOKENS, "excess_tokens" },	\
			 { DLB2_ALARM_ILLEGAL_HCW, "illegal_hcw" },	\
			 { DLB2_ALARM_ILLEGAL_QID, "illegal_qid" },	\
			 { DLB2_ALARM_DISABLED_QID, "disabled_qid" },	\
			 { DLB2_ALARM_OTHER, "other" })

/* enum dlb2_p2p_map_type, 0 for a refused map */
#define dlb2_show_map_mode(mode)					\
	__print_symbolic(mode,						\
			 { 0, "none" },					\
			 { 1, "bus_addr" },				\
			 { 2, "thru_host_bridge" })

/*
 * dlb2_domain_enable: "echo 1 > enable" of a configfs domain, with its
 * result: the hardware domain id (-1 on failure), the errno (0) and the
 * domain's status attribute as it now reads.
 */
TRACE_EVENT(dlb2_domain_enable,
	    TP_PROTO(const char *dev, const char *domain, int id, int ret,
		     const char *status),
	    TP_ARGS(dev, domain, id, ret, status),
	    TP_STRUCT__entry(__string(dev, dev)
			     __string(domain, domain)
			     __field(int, id)
			     __field(int, ret)
			     __string(status, status)
	    ),
	    TP_fast_assign(dlb2_assign_str(dev, dev);
			   dlb2_assign_str(domain, domain);
			   __entry->id = id;
			   __entry->ret = ret;
			   dlb2_assign_str(status, status);
	    ),
	    TP_printk("dev=%s domain=%s id=%d ret=%d status=\"%s\"",
		      __get_str(dev), __get_str(domain), __entry->id,
		      __entry->ret, __get_str(status)));

/*
 * dlb2_domain_disable: an enabled domain taken from user space (disable,
 * rmdir, unbind, device reset, PCIe error); @status is its status
 * attribute afterwards ("disabled", "error: device removed", ...).
 */
TRACE_EVENT(dlb2_domain_disable,
	    TP_PROTO(const char *dev, const char *domain, int id,
		     const char *status),
	    TP_ARGS(dev, domain, id, status),
	    TP_STRUCT__entry(__string(dev, dev)
			     __string(domain, domain)
			     __field(int, id)
			     __string(status, status)
	    ),
	    TP_fast_assign(dlb2_assign_str(dev, dev);
			   dlb2_assign_str(domain, domain);
			   __entry->id = id;
			   dlb2_assign_str(status, status);
	    ),
	    TP_printk("dev=%s domain=%s id=%d status=\"%s\"",
		      __get_str(dev), __get_str(domain), __entry->id,
		      __get_str(status)));

/*
 * dlb2_domain_reset: the hardware of a domain drained and reset, once its
 * holders have returned (or at once, after a failed enable).  ret: 0, or
 * -EBUSY when QEs were left in the device, -ENODEV when the device is gone.
 */
TRACE_EVENT(dlb2_domain_reset,
	    TP_PROTO(const char *dev, const char *domain, int id, int ret,
		     u64 usecs),
	    TP_ARGS(dev, domain, id, ret, usecs),
	    TP_STRUCT__entry(__string(dev, dev)
			     __string(domain, domain)
			     __field(int, id)
			     __field(int, ret)
			     __field(u64, usecs)
	    ),
	    TP_fast_assign(dlb2_assign_str(dev, dev);
			   dlb2_assign_str(domain, domain);
			   __entry->id = id;
			   __entry->ret = ret;
			   __entry->usecs = usecs;
	    ),
	    TP_printk("dev=%s domain=%s id=%d ret=%d usecs=%llu",
		      __get_str(dev), __get_str(domain), __entry->id,
		      __entry->ret, __entry->usecs));

/*
 * dlb2_alarm: an ingress alarm (service interrupt), its kind as sysfs's
 * alarms/ names it, the raw ALARM_PF_SYND0 register, the port it names
 * (ldb: load-balanced, else directed) and that port's domain (-1: the
 * port is in no enabled domain).
 */
TRACE_EVENT(dlb2_alarm,
	    TP_PROTO(const char *dev, enum dlb2_alarm kind, u32 synd0, bool ldb,
		     unsigned int port, int domain),
	    TP_ARGS(dev, kind, synd0, ldb, port, domain),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(int, kind)
			     __field(u32, synd0)
			     __field(bool, ldb)
			     __field(unsigned int, port)
			     __field(int, domain)
	    ),
	    TP_fast_assign(dlb2_assign_str(dev, dev);
			   __entry->kind = kind;
			   __entry->synd0 = synd0;
			   __entry->ldb = ldb;
			   __entry->port = port;
			   __entry->domain = domain;
	    ),
	    TP_printk("dev=%s kind=%s synd0=%#x port=%s:%u domain=%d",
		      __get_str(dev), dlb2_show_alarm(__entry->kind),
		      __entry->synd0, __entry->ldb ? "ldb" : "dir", __entry->port,
		      __entry->domain));

/* dlb2_hw_alarm: a hardware alarm, the raw ALARM_HW_SYND register. */
TRACE_EVENT(dlb2_hw_alarm,
	    TP_PROTO(const char *dev, u32 synd),
	    TP_ARGS(dev, synd),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, synd)
	    ),
	    TP_fast_assign(dlb2_assign_str(dev, dev);
			   __entry->synd = synd;
	    ),
	    TP_printk("dev=%s synd=%#x", __get_str(dev), __entry->synd));

/*
 * The P2P events name the port by its hardware domain and port ids and
 * its configfs name, and the pin by its (hashed) address, which the
 * events of one pin share; holder is the pin's revoke callback, which
 * says whose pin it is (peermem_dlb, dlb2's own dma-buf export, ...).
 */
DECLARE_EVENT_CLASS(dlb2_p2p_pin_class,
		    TP_PROTO(const void *pin, int domain, bool ldb, unsigned int port,
			     const char *name, const void *holder, u32 offset, u32 len,
			     int ret),
		    TP_ARGS(pin, domain, ldb, port, name, holder, offset, len, ret),
		    TP_STRUCT__entry(__field(const void *, pin)
				     __field(int, domain)
				     __field(bool, ldb)
				     __field(unsigned int, port)
				     __string(name, name)
				     __field(const void *, holder)
				     __field(u32, offset)
				     __field(u32, len)
				     __field(int, ret)
		    ),
		    TP_fast_assign(__entry->pin = pin;
				   __entry->domain = domain;
				   __entry->ldb = ldb;
				   __entry->port = port;
				   dlb2_assign_str(name, name);
				   __entry->holder = holder;
				   __entry->offset = offset;
				   __entry->len = len;
				   __entry->ret = ret;
		    ),
		    TP_printk("pin=%p domain=%d port=%s:%u name=%s holder=%ps offset=%#x len=%#x ret=%d",
			      __entry->pin, __entry->domain, __entry->ldb ? "ldb" : "dir",
			      __entry->port, __get_str(name), __entry->holder,
			      __entry->offset, __entry->len, __entry->ret));

/*
 * dlb2_p2p_pin: dlb2_p2p_get() or a dma-buf export pinned a port (ret 0;
 * pin NULL and ret -ENODEV or -EACCES when refused; domain is the
 * requested one then).  dlb2_p2p_put: the holder dropped its pin.
 */
DEFINE_EVENT(dlb2_p2p_pin_class, dlb2_p2p_pin,
	     TP_PROTO(const void *pin, int domain, bool ldb, unsigned int port,
		      const char *name, const void *holder, u32 offset, u32 len,
		      int ret),
	     TP_ARGS(pin, domain, ldb, port, name, holder, offset, len, ret));

DEFINE_EVENT(dlb2_p2p_pin_class, dlb2_p2p_put,
	     TP_PROTO(const void *pin, int domain, bool ldb, unsigned int port,
		      const char *name, const void *holder, u32 offset, u32 len,
		      int ret),
	     TP_ARGS(pin, domain, ldb, port, name, holder, offset, len, ret));

/*
 * dlb2_p2p_revoke: a pin's revoke callback is called (its port went
 * away).  dlb2_p2p_revoke_done: it returned after usecs, and dlb2 undid
 * the unmapped DMA mappings the holder had left (ret).
 */
DEFINE_EVENT(dlb2_p2p_pin_class, dlb2_p2p_revoke,
	     TP_PROTO(const void *pin, int domain, bool ldb, unsigned int port,
		      const char *name, const void *holder, u32 offset, u32 len,
		      int ret),
	     TP_ARGS(pin, domain, ldb, port, name, holder, offset, len, ret));

TRACE_EVENT(dlb2_p2p_revoke_done,
	    TP_PROTO(const void *pin, const void *holder, u64 usecs,
		     unsigned int unmapped),
	    TP_ARGS(pin, holder, usecs, unmapped),
	    TP_STRUCT__entry(__field(const void *, pin)
			     __field(const void *, holder)
			     __field(u64, usecs)
			     __field(unsigned int, unmapped)
	    ),
	    TP_fast_assign(__entry->pin = pin;
			   __entry->holder = holder;
			   __entry->usecs = usecs;
			   __entry->unmapped = unmapped;
	    ),
	    TP_printk("pin=%p holder=%ps usecs=%llu unmapped=%u",
		      __entry->pin, __entry->holder, __entry->usecs,
		      __entry->unmapped));

/*
 * dlb2_p2p_map: dlb2_p2p_map() for a peer device: the mode it decided
 * (none when refused), whether p2p_override forced a path the kernel's
 * P2PDMA policy refuses, that policy's reason ("" when it allows the
 * path), the address the peer writes (0 on failure) and the errno.
 */
TRACE_EVENT(dlb2_p2p_map,
	    TP_PROTO(const void *pin, const char *peer, int mode, bool forced,
		     const char *why, u64 addr, int ret),
	    TP_ARGS(pin, peer, mode, forced, why, addr, ret),
	    TP_STRUCT__entry(__field(const void *, pin)
			     __string(peer, peer)
			     __field(int, mode)
			     __field(bool, forced)
			     __string(why, why)
			     __field(u64, addr)
			     __field(int, ret)
	    ),
	    TP_fast_assign(__entry->pin = pin;
			   dlb2_assign_str(peer, peer);
			   __entry->mode = mode;
			   __entry->forced = forced;
			   dlb2_assign_str(why, why);
			   __entry->addr = addr;
			   __entry->ret = ret;
	    ),
	    TP_printk("pin=%p peer=%s mode=%s forced=%d why=\"%s\" addr=%#llx ret=%d",
		      __entry->pin, __get_str(peer),
		      dlb2_show_map_mode(__entry->mode), __entry->forced,
		      __get_str(why), __entry->addr, __entry->ret));

/*
 * dlb2_p2p_unmap: a mapping undone, by its holder (by_revoke 0) or by
 * dlb2 after the pin's revoke callback returned (by_revoke 1).
 */
TRACE_EVENT(dlb2_p2p_unmap,
	    TP_PROTO(const void *pin, const char *peer, int mode, u64 addr,
		     bool by_revoke),
	    TP_ARGS(pin, peer, mode, addr, by_revoke),
	    TP_STRUCT__entry(__field(const void *, pin)
			     __string(peer, peer)
			     __field(int, mode)
			     __field(u64, addr)
			     __field(bool, by_revoke)
	    ),
	    TP_fast_assign(__entry->pin = pin;
			   dlb2_assign_str(peer, peer);
			   __entry->mode = mode;
			   __entry->addr = addr;
			   __entry->by_revoke = by_revoke;
	    ),
	    TP_printk("pin=%p peer=%s mode=%s addr=%#llx by_revoke=%d",
		      __entry->pin, __get_str(peer),
		      dlb2_show_map_mode(__entry->mode), __entry->addr,
		      __entry->by_revoke));

/*
 * dlb2_dmabuf_revoke: a port's dma-buf revoked: its importers told, their
 * fences waited for (timed_out: not all signalled within fence_wait_ms).
 */
TRACE_EVENT(dlb2_dmabuf_revoke,
	    TP_PROTO(unsigned long ino, unsigned int wait_ms, bool timed_out),
	    TP_ARGS(ino, wait_ms, timed_out),
	    TP_STRUCT__entry(__field(unsigned long, ino)
			     __field(unsigned int, wait_ms)
			     __field(bool, timed_out)
	    ),
	    TP_fast_assign(__entry->ino = ino;
			   __entry->wait_ms = wait_ms;
			   __entry->timed_out = timed_out;
	    ),
	    TP_printk("ino=%lu wait_ms=%u timed_out=%d", __entry->ino,
		      __entry->wait_ms, __entry->timed_out));

#endif /* __DLB2_TRACE_H */

/* This part must be outside the header guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
