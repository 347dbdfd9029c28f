/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PCIe device model.
 *
 * This file owns the PCI function: identity (8086:2710, or 8086:2714 with
 * version=2.5), BAR layout, MSI-X, the PCI Express capability with FLR, and
 * reset.  See Documentation/qemu-dlb2-model.rst in the AccDirect repository
 * for what is modelled and the choices made where public facts are silent.
 *
 * Usage: -device dlb2[,version=2.0|2.5][,sync-sched=on]
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qemu/module.h"
#include "dlb2.h"
#include "trace.h"

static const uint16_t dlb2_device_ids[DLB2_NUM_VERSIONS] = {
    [DLB2_V2_0] = DLB2_PCI_DEVICE_ID_V2_0,
    [DLB2_V2_5] = DLB2_PCI_DEVICE_ID_V2_5,
};

static bool dlb2_parse_version(DLB2State *s, Error **errp)
{
    if (!s->version_str || !strcmp(s->version_str, "2.0")) {
        s->ver = DLB2_V2_0;
    } else if (!strcmp(s->version_str, "2.5")) {
        s->ver = DLB2_V2_5;
    } else {
        error_setg(errp, "dlb2: version must be 2.0 or 2.5, not '%s'",
                   s->version_str);
        return false;
    }
    return true;
}

static void dlb2_init_msix(DLB2State *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    unsigned int v;

    if (msix_init(pdev, DLB2_MSIX_VECTORS,
                  &s->func_bar, DLB2_FUNC_BAR, DLB2_MSIX_TABLE_OFFSET,
                  &s->func_bar, DLB2_FUNC_BAR, DLB2_MSIX_PBA_OFFSET,
                  0, errp) < 0) {
        return;
    }
    for (v = 0; v < DLB2_MSIX_VECTORS; v++) {
        msix_vector_use(pdev, v);
    }
}

static void dlb2_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);    /* FLR resets all */
}

static void dlb2_realize(PCIDevice *pdev, Error **errp)
{
    DLB2State *s = DLB2(pdev);
    uint8_t *conf = pdev->config;
    const uint64_t bar_flags = PCI_BASE_ADDRESS_SPACE_MEMORY |
                               PCI_BASE_ADDRESS_MEM_TYPE_64 |
                               PCI_BASE_ADDRESS_MEM_PREFETCH;

    if (!dlb2_parse_version(s, errp) || !dlb2_sched_parse(s, errp)) {
        return;
    }
    /* IDs: FACT (facts §1.1); subsystem ID = device ID: CHOICE. */
    pci_set_word(conf + PCI_DEVICE_ID, dlb2_device_ids[s->ver]);
    pci_set_word(conf + PCI_SUBSYSTEM_VENDOR_ID, PCI_VENDOR_ID_INTEL);
    pci_set_word(conf + PCI_SUBSYSTEM_ID, dlb2_device_ids[s->ver]);

    memory_region_init(&s->func_bar, OBJECT(s), "dlb2-func",
                       DLB2_FUNC_BAR_SIZE);
    memory_region_init_io(&s->pp_mmio, OBJECT(s), &dlb2_pp_ops, s, "dlb2-pp",
                          DLB2_PP_SIZE);
    memory_region_add_subregion(&s->func_bar, DLB2_PP_BASE, &s->pp_mmio);
    memory_region_init_io(&s->csr_bar, OBJECT(s), &dlb2_csr_ops, s, "dlb2-csr",
                          DLB2_CSR_BAR_SIZE);

    /* 64-bit prefetchable BARs: CHOICE (facts §1.2: INFERRED for a PF). */
    pci_register_bar(pdev, DLB2_FUNC_BAR, bar_flags, &s->func_bar);
    pci_register_bar(pdev, DLB2_CSR_BAR, bar_flags, &s->csr_bar);

    /* PCI Express capability with FLR: FACT (facts §1.5, §6.1). */
    if (pcie_endpoint_cap_init(pdev, DLB2_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "dlb2: cannot add the PCI Express capability");
        return;
    }
    pcie_cap_flr_init(pdev);

    dlb2_init_msix(s, errp);
    if (*errp) {
        pcie_cap_exit(pdev);
        return;
    }
    dlb2_csr_init(s);
    dlb2_sched_init(s);
    dlb2_delay_init(s);
    trace_dlb2_realize(s->ver == DLB2_V2_5 ? "2.5" : "2.0");
}

static void dlb2_exit(PCIDevice *pdev)
{
    DLB2State *s = DLB2(pdev);

    dlb2_delay_fini(s);
    dlb2_sched_fini(s);
    dlb2_csr_fini(s);
    msix_uninit(pdev, &s->func_bar, &s->func_bar);
    pcie_cap_exit(pdev);
}

/*
 * Power-on, system reset and FLR all come here: every state is cleared,
 * INFERRED (facts §3.2: the FLR clears everything); PMCSR aside (dlb2-csr.c).
 */
static void dlb2_reset(DeviceState *dev)
{
    DLB2State *s = DLB2(dev);

    trace_dlb2_reset();
    dlb2_delay_reset(s);
    dlb2_csr_reset(s);
    dlb2_sched_reset(s);
}

static Property dlb2_properties[] = {
    DEFINE_PROP_STRING("version", DLB2State, version_str),
    DEFINE_PROP_BOOL("sync-sched", DLB2State, sync_sched, false),
    DEFINE_PROP_BOOL("msix-erratum", DLB2State, msix_erratum, false),
    /* Behaviours the facts leave open (dlb2.h; CHOICE rows of the doc). */
    DEFINE_PROP_STRING("arbitration", DLB2State, arbitration_str),
    DEFINE_PROP_UINT32("seed", DLB2State, seed, 1),
    DEFINE_PROP_BOOL("arm-token", DLB2State, arm_token, false),
    DEFINE_PROP_UINT32("ingress-delay", DLB2State, ingress_delay_ns, 0),
    DEFINE_PROP_UINT32("csr-write-delay", DLB2State, csr_delay_ns, 0),
    DEFINE_PROP_END_OF_LIST(),
};

/*
 * "off-bus" (set at run time with qom-set): the device has left the bus
 * as in a surprise removal, before the slot reports it: BAR reads answer
 * all ones, writes are lost, nothing is scheduled, written or signalled.
 * tools/vm/run --hotplug sets it before device_del ("yank").
 */
static bool dlb2_get_off_bus(Object *obj, Error **errp)
{
    return DLB2(obj)->off_bus;
}

static void dlb2_set_off_bus(Object *obj, bool value, Error **errp)
{
    DLB2(obj)->off_bus = value;
}

/*
 * "stuck-tokens" (a fault, set at run time with qom-set): token returns
 * (BAT_T, COMP_T, ...) are lost, so no CQ's token count goes down and a
 * port never drains, as in a device that stopped processing its ports'
 * HCWs.  Not a behaviour of working hardware; for tests of the driver's
 * bounded drains (tools/vm/run --hotplug, "stuck-tokens-on").
 */
static bool dlb2_get_stuck_tokens(Object *obj, Error **errp)
{
    return DLB2(obj)->stuck_tokens;
}

static void dlb2_set_stuck_tokens(Object *obj, bool value, Error **errp)
{
    DLB2(obj)->stuck_tokens = value;
}

/*
 * "inject-alarm" (a fault, written at run time with qom-set): the device
 * reports an illegal-HCW alarm, as dlb2_alarm() reports one, from the port
 * the value names: bits 6:0 the port id, bit 7 set for a load-balanced
 * port.  Any id the syndrome can hold, including ports the device does not
 * have (load-balanced 64-127, directed 64-127 on 2.0 and 96-127 on 2.5),
 * for tests of the driver's decoding of a syndrome it cannot trust.  Not a
 * behaviour of working hardware.  Reads give the last value written.
 */
static void dlb2_get_inject_alarm(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    uint32_t value = DLB2(obj)->injected_alarm;

    visit_type_uint32(v, name, &value, errp);
}

static void dlb2_set_inject_alarm(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    DLB2State *s = DLB2(obj);
    DLB2HCW hcw = { 0 };
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value > 0xff) {
        error_setg(errp, "inject-alarm: %u is not a port (bits 6:0) and "
                   "a load-balanced flag (bit 7)", value);
        return;
    }
    s->injected_alarm = value;
    if (!s->off_bus) {
        dlb2_alarm(s, DLB2_ALARM_ILLEGAL_HCW, value & 0x80, value & 0x7f,
                   &hcw);
    }
}

static void dlb2_instance_init(Object *obj)
{
    object_property_add_bool(obj, "off-bus", dlb2_get_off_bus,
                             dlb2_set_off_bus);
    object_property_add_bool(obj, "stuck-tokens", dlb2_get_stuck_tokens,
                             dlb2_set_stuck_tokens);
    object_property_add(obj, "inject-alarm", "uint32", dlb2_get_inject_alarm,
                        dlb2_set_inject_alarm, NULL, NULL);
}

static const VMStateDescription dlb2_vmstate = {
    .name = TYPE_DLB2,
    .unmigratable = 1,
};

static void dlb2_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = dlb2_realize;
    k->exit = dlb2_exit;
    k->config_write = dlb2_write_config;
    k->vendor_id = PCI_VENDOR_ID_INTEL;
    k->device_id = DLB2_PCI_DEVICE_ID_V2_0;
    k->class_id = DLB2_PCI_CLASS;
    k->revision = 0;
    dc->desc = "Intel Dynamic Load Balancer 2.0/2.5";
    dc->reset = dlb2_reset;
    dc->vmsd = &dlb2_vmstate;
    device_class_set_props(dc, dlb2_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo dlb2_info = {
    .name = TYPE_DLB2,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(DLB2State),
    .instance_init = dlb2_instance_init,
    .class_init = dlb2_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void dlb2_register_types(void)
{
    type_register_static(&dlb2_info);
}

type_init(dlb2_register_types)
