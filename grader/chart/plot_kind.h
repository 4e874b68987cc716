/*
 * What --plot asks for: a chart file (PNG or SVG), a drawing on the
 * terminal, or no chart. Apart from the charts themselves, so that the
 * command line parser does not depend on the renderer.
 */
#ifndef GRADER_PLOT_KIND_H
#define GRADER_PLOT_KIND_H

enum plot_kind { PLOT_PNG, PLOT_SVG, PLOT_TERM, PLOT_NONE };

/* "png", "svg", "term", "none" (any case). Returns 0, or -1 for anything
 * else, leaving *k alone. */
int plot_kind_parse(const char *s, enum plot_kind *k);

/* "png", "svg", "term", "none". */
const char *plot_kind_name(enum plot_kind k);

#endif
