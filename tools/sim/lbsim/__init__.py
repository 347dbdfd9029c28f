# SPDX-License-Identifier: GPL-2.0
"""lbsim: a discrete-event simulator of intra-host load balancing
(RSS-like random dispatch, round robin, JSQ, c-FCFS and DLB as JBSQ(K))."""
