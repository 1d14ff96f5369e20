/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* On-CPU sampling: records are struct hc_stack_rec (abi/common.h), kind ONCPU. */
#ifndef HC_ABI_ONCPU_H
#define HC_ABI_ONCPU_H

#include "abi/common.h"

/* cfg_stacks bits */
#define HC_ONCPU_KSTACK		0x1
#define HC_ONCPU_USTACK		0x2

#endif /* HC_ABI_ONCPU_H */
