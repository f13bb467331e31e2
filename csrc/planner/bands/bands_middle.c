/*
 * The middle hunt of the band phase's descent: bands that open inside the
 * window rather than at either end.
 *
 * The descent's hunts open a band with a subset of the members that start at
 * the window's first op (or, time reversed, end at its last), fewest members
 * first. A true band whose opening is a large part of the many members there
 * lies past where any node budget reaches. 400 s37 is two generator bands, 244
 * buffers over 2,531 granules and 156 over 1,565, and every band the end-opened
 * hunts find shares members with another without holding it: pieces of both,
 * whose widths happen to add up (5.7 % above the bound).
 *
 * Where the fewest members live, a band's opening is small: at op m, the
 * thinnest inside the window, each subset of up to MIDDLE_MAX_OPENING of the
 * members live there opens a band both ways. The members that end by m (their
 * lives cut to end at m) are hunted over [t0, m] with time reversed, those that
 * start from m (cut to start at m) over [m, t1], each half with the subset as
 * its one opening and any band accepted; the two halves agree at m, so together
 * they are a band over the whole window. In 400 s37, three of the members live
 * at the thinnest op open a band of 155 buffers over 1,565 granules (the
 * generator's 156 with one piece traded for another of its width), and auto
 * reaches the bound in 2.2 s of its 10.
 */
#include "bands_internal.h"

#include <stdlib.h>
#include <string.h>

/* Openings of up to this many of the members live at the thinnest op. */
#define MIDDLE_MAX_OPENING 4u
/* Nodes of each half's hunt. */
#define MIDDLE_HALF_NODES 2000u

static const bs_hunt HUNT_HALF = {MIDDLE_HALF_NODES, 0, 1, 1, 1, 1};

/* The op strictly inside [t0, t1] where the fewest members of set[0 .. count)
   live, or -1 (a window of two ops or fewer, or out of memory). */
static int32_t middle_thinnest_op(const bs_state *s, const uint32_t *set, uint32_t count,
                                  int32_t t0, int32_t t1)
{
    size_t span = (size_t)(t1 - t0) + 1, k;
    int32_t *delta, live = 0, fewest = INT32_MAX, at = -1;
    uint32_t j;
    if (span < 3 || (delta = (int32_t *)ap_pl_zalloc(span + 1, sizeof(int32_t))) == NULL) {
        return -1;
    }
    for (j = 0; j < count; ++j) {
        ++delta[s->f[set[j]] - t0];
        --delta[s->l[set[j]] - t0 + 1];
    }
    for (k = 0; k + 1 < span; ++k) {
        live += delta[k];
        if (k > 0 && live < fewest) {
            fewest = live;
            at = t0 + (int32_t)k;
        }
    }
    free(delta);
    return at;
}

/* One half of a band opened at op m by the marked members live there: part[0 ..
   np) over [a, b], their lives cut to start at m (forward) or to end at m (time
   reversed, the half before m); its band into `half` (emptied first). 1 when
   one was found. saved: room for np ops. */
static int middle_half(bs_state *s, const uint32_t *part, uint32_t np, int32_t a, int32_t b,
                       int32_t m, uint32_t width, int32_t span, int reversed, int32_t *saved,
                       bs_bands *half)
{
    uint32_t j;
    int found;
    for (j = 0; j < np; ++j) {
        int32_t *t = reversed ? &s->l[part[j]] : &s->f[part[j]];
        saved[j] = *t;
        *t = reversed ? (*t < m ? *t : m) : (*t > m ? *t : m);
    }
    half->n = 0;
    found = reversed ? ap_bs_hunt_reversed(s, part, np, a, b, width, span, &HUNT_HALF, half) > 0
                     : ap_bs_hunt(s, part, np, a, b, width, &HUNT_HALF, half) > 0;
    for (j = 0; j < np; ++j) {
        *(reversed ? &s->l[part[j]] : &s->f[part[j]]) = saved[j];
    }
    return found;
}

void ap_bs_middle_hunt(bs_state *s, const uint32_t *set, uint32_t count, int32_t t0, int32_t t1,
                       uint32_t width, int32_t span, uint32_t max_bands, uint64_t budget,
                       bs_bands *found)
{
    int32_t m = middle_thinnest_op(s, set, count, t0, t1);
    uint32_t *after = NULL, *upto = NULL, *live = NULL, *band = NULL, na = 0, nu = 0, nl = 0;
    uint32_t combo[MIDDLE_MAX_OPENING], j, k, added = 0;
    uint64_t stop = s->nodes + budget;
    int32_t *saved = NULL;
    bs_bands forward, back;
    int have_forward, have_back;
    if (m < 0) {
        return;
    }
    have_forward = ap_bs_bands_init(&forward, count);
    have_back = ap_bs_bands_init(&back, count);
    after = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    upto = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    live = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    band = (uint32_t *)ap_pl_alloc(count, sizeof(uint32_t));
    saved = (int32_t *)ap_pl_alloc(count, sizeof(int32_t));
    if (!have_forward || !have_back || !after || !upto || !live || !band || !saved) {
        goto out; /* no memory: no middle bands */
    }
    for (j = 0; j < count; ++j) {
        uint32_t i = set[j];
        if (s->l[i] >= m) {
            after[na++] = i;
        }
        if (s->f[i] <= m) {
            upto[nu++] = i;
        }
        if (s->f[i] <= m && m <= s->l[i]) {
            live[nl++] = i;
        }
    }
    for (k = 1; k <= MIDDLE_MAX_OPENING && k < nl; ++k) {
        for (j = 0; j < k; ++j) {
            combo[j] = j;
        }
        do {
            uint64_t wb = 0;
            int both;
            if (s->nodes >= stop || added >= max_bands || s->nodes >= s->node_cap) {
                goto out;
            }
            for (j = 0; j < k; ++j) {
                wb += s->u[live[combo[j]]];
                s->mark[live[combo[j]]] = 1;
            }
            both = wb < width &&
                   middle_half(s, upto, nu, t0, m, m, width, span, 1, saved, &back) &&
                   middle_half(s, after, na, m, t1, m, width, span, 0, saved, &forward);
            for (j = 0; j < k; ++j) {
                s->mark[live[combo[j]]] = 0;
            }
            if (both) {
                /* the forward half, and the back half's members that end before m */
                uint32_t len = forward.len[0];
                memcpy(band, bs_band(&forward, 0), len * sizeof(uint32_t));
                for (j = 0; j < back.len[0]; ++j) {
                    if (s->l[bs_band(&back, 0)[j]] < m) {
                        band[len++] = bs_band(&back, 0)[j];
                    }
                }
                ap_bs_keep_band(s, band, len, (uint32_t)wb, found);
                ++added;
            }
        } while (bs_next_subset(combo, k, nl));
    }
out:
    free(after);
    free(upto);
    free(live);
    free(band);
    free(saved);
    free(forward.members);
    free(back.members);
}
