// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The index page's timeline: HTML and CSS here, the script in view_page.js
 * (plain JavaScript written for this page, no library), assembled into the
 * binary with .incbin so it is edited as JavaScript, not as a C string.
 */
#include "agent/view.h"

#include <errno.h>

/* view_page.js, NUL-terminated; the Makefile makes view_page.o depend on it */
extern const char view_page_js[];
__asm__(".pushsection .rodata\n"
	".global view_page_js\n"
	".type view_page_js, @object\n"
	"view_page_js:\n"
	".incbin \"src/agent/view_page.js\"\n"
	".byte 0\n"
	".popsection\n");

static const char page_head[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	"<title>hotcold agent</title><style>\n"
	"body{font-family:sans-serif;margin:12px}td{padding:2px 10px}\n"
	"#controls{margin:6px 0}#controls input,#controls select{margin-right:12px}\n"
	"#timeline{display:block;width:1200px;user-select:none;cursor:crosshair}\n"
	".lane{fill:#f6f6f6}.lname{font:bold 12px sans-serif}.lmax,.axis{font:11px sans-serif;fill:#555}\n"
	".axis.end{text-anchor:end}.bar.oncpu{fill:#e0663a}.bar.offcpu{fill:#3a78c9}\n"
	".bar.runq{fill:#8a5cc2}.bar.lock{fill:#3aa07a}.bar.sel{stroke:#000;stroke-width:1}\n"
	".bar.unknown{fill:#ccc}#brush{fill:rgba(255,200,0,.25);stroke:#c90;pointer-events:none}\n"
	"#brushA{fill:rgba(0,150,255,.15);stroke:#08c;pointer-events:none}\n"
	"#status,#graphinfo,#astatus,#note{margin:4px 0;font-size:13px}\n"
	"#empty{display:none;padding:24px;margin:8px 0;border:1px dashed #999;color:#444;"
	"background:#fafafa;font-size:15px}\n"
	"#graph{display:none;border:0;width:1220px;height:400px}\n"
	"</style></head><body>\n<h1>hotcold agent</h1>\n";

static const char page_timeline[] =
	"<div id=\"controls\">kind <select id=\"kind\"><option>oncpu</option>"
	"<option>offcpu</option><option>runq</option><option>lock</option></select>"
	"processes <input id=\"filter\" size=\"18\" placeholder=\"regex, e.g. ^nginx\" "
	"title=\"only stacks whose process (or command-line label) matches\">"
	"threads <input id=\"thread\" size=\"18\" placeholder=\"regex, e.g. ^worker\" "
	"title=\"only samples whose thread name, or NAME-TID, matches (from the stored pprof)\">"
	"search <input id=\"search\" size=\"18\" placeholder=\"regex\" "
	"title=\"highlight matching frames in the graph\">"
	"<button id=\"keepA\" disabled>keep as A</button>"
	"<button id=\"diff\" disabled>diff A &rarr; B</button> <span id=\"astatus\"></span></div>\n"
	"<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"60\"></svg>\n"
	"<div id=\"note\"></div><div id=\"status\">loading the timeline...</div>"
	"<div id=\"graphinfo\"></div>\n<div id=\"empty\"></div>\n"
	"<iframe id=\"graph\" title=\"flame graph of the selected range\"></iframe>\n";

static const char page_forms[] =
	"<h2>Recent minutes</h2>\n"
	"<form action=\"/flame\">Flame graph of the last "
	"<input name=\"minutes\" value=\"10\" size=\"4\"> minutes, kind "
	"<select name=\"kind\"><option>oncpu</option><option>offcpu</option>"
	"<option>runq</option><option>lock</option></select> "
	"<input type=\"submit\" value=\"show\"></form>\n"
	"<form action=\"/diff\">Diff: the <input name=\"minutes\" value=\"10\" "
	"size=\"4\"> minutes before vs the last ones, kind "
	"<select name=\"kind\"><option>oncpu</option><option>offcpu</option>"
	"<option>runq</option><option>lock</option></select> "
	"<input type=\"submit\" value=\"diff\"></form>\n"
	"<p><a href=\"/metrics\">metrics</a> &middot; "
	"<a href=\"/timeline.json\">timeline.json</a> &middot; "
	"<a href=\"/debug/pprof/profile?seconds=60\">pprof of the last 60 s</a></p>\n";

int view_page_head(FILE *out)
{
	fputs(page_head, out);
	fputs(page_timeline, out);
	fputs(page_forms, out);
	return ferror(out) ? -EIO : 0;
}

int view_page_tail(FILE *out)
{
	fprintf(out, "<script>\n%s</script>\n</body></html>\n", view_page_js);
	return ferror(out) ? -EIO : 0;
}
