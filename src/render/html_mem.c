/* html_mem.c - the "Memory" section of the HTML report. */
#include "render/html.h"

void html_section_memory(buf *b, const html_inputs *in)
{
    (void)in;
    buf_puts(b, "<section id=\"memory\"><h2>Memory</h2></section>\n");
}
