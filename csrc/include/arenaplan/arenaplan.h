/*
 * arenaplan public C API: include this one header.
 * The order below is the order cffi reads the headers in (harness/cbuild.py).
 */
#ifndef ARENAPLAN_ARENAPLAN_H
#define ARENAPLAN_ARENAPLAN_H

#include "arenaplan/status.h"
#include "arenaplan/planner.h"
#include "arenaplan/pools.h"
#include "arenaplan/kernel.h"
#include "arenaplan/quant.h"
#include "arenaplan/ops.h"
#include "arenaplan/conv2d.h"
#include "arenaplan/executor.h"
#include "arenaplan/depthwise_conv2d.h"
#include "arenaplan/fully_connected.h"
#include "arenaplan/pooling.h"
#include "arenaplan/elementwise.h"
#include "arenaplan/softmax.h"
#include "arenaplan/quantize.h"
#include "arenaplan/shape_ops.h"
#include "arenaplan/svdf.h"
#include "arenaplan/lstm.h"

#endif
