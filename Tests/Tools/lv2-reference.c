/* A reference LV2 host for tests: what lv2apply does, for plugins lv2apply refuses
   because they have atom ports. It renders raw mono float32 from stdin through one
   plugin to stdout at 48 kHz, in blocks of BLOCK frames: the plugin is instantiated,
   activated and run, nothing else first. Control inputs take their defaults (or
   SYMBOL=VALUE arguments); atom inputs get an empty sequence each block; atom
   outputs get a chunk to write into. Written from lilv's API and the LV2 atom and
   URID specifications.

   usage: lv2-reference PLUGIN-URI BLOCK [SYMBOL=VALUE ...] < in.f32 > out.f32 */
#include <lilv/lilv.h>
#include <lv2/atom/atom.h>
#include <lv2/urid/urid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *uris[4096];
static LV2_URID uri_count;

static LV2_URID map(LV2_URID_Map_Handle handle, const char *uri) {
    (void)handle;
    for (LV2_URID index = 0; index < uri_count; ++index)
        if (strcmp(uris[index], uri) == 0) return index + 1;
    if (uri_count == 4096) return 0;
    uris[uri_count] = strdup(uri);
    return ++uri_count;
}

enum { atom_capacity = 65536 };

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: lv2-reference PLUGIN-URI BLOCK [SYMBOL=VALUE ...]\n"); return 2; }
    unsigned block = (unsigned)atoi(argv[2]);
    LilvWorld *world = lilv_world_new();
    lilv_world_load_all(world);
    LilvNode *uri = lilv_new_uri(world, argv[1]);
    const LilvPlugin *plugin = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), uri);
    if (!plugin) { fprintf(stderr, "no plugin %s\n", argv[1]); return 1; }

    LV2_URID_Map map_data = {NULL, map};
    LV2_Feature map_feature = {LV2_URID__map, &map_data};
    const LV2_Feature *features[] = {&map_feature, NULL};
    LilvInstance *instance = lilv_plugin_instantiate(plugin, 48000, features);
    if (!instance) { fprintf(stderr, "could not instantiate\n"); return 1; }

    LilvNode *audio = lilv_new_uri(world, LV2_CORE__AudioPort), *control = lilv_new_uri(world, LV2_CORE__ControlPort);
    LilvNode *atom = lilv_new_uri(world, LV2_ATOM__AtomPort), *input = lilv_new_uri(world, LV2_CORE__InputPort);
    uint32_t ports = lilv_plugin_get_num_ports(plugin);
    float *values = calloc(ports, sizeof(float));
    float *in = calloc(block, sizeof(float)), *out = calloc(block, sizeof(float));
    LV2_Atom_Sequence **sequences = calloc(ports, sizeof(LV2_Atom_Sequence *));
    float *defaults = calloc(ports, sizeof(float));
    lilv_plugin_get_port_ranges_float(plugin, NULL, NULL, defaults);
    int audio_in = 0, audio_out = 0;
    for (uint32_t index = 0; index < ports; ++index) {
        const LilvPort *port = lilv_plugin_get_port_by_index(plugin, index);
        int is_input = lilv_port_is_a(plugin, port, input);
        if (lilv_port_is_a(plugin, port, audio)) {
            lilv_instance_connect_port(instance, index, is_input ? (audio_in++ ? NULL : in) : (audio_out++ ? NULL : out));
        } else if (lilv_port_is_a(plugin, port, control)) {
            values[index] = defaults[index] == defaults[index] ? defaults[index] : 0;
            const char *symbol = lilv_node_as_string(lilv_port_get_symbol(plugin, port));
            for (int argument = 3; argument < argc; ++argument) {
                size_t length = strlen(symbol);
                if (strncmp(argv[argument], symbol, length) == 0 && argv[argument][length] == '=') values[index] = (float)atof(argv[argument] + length + 1);
            }
            lilv_instance_connect_port(instance, index, &values[index]);
        } else if (lilv_port_is_a(plugin, port, atom)) {
            sequences[index] = aligned_alloc(8, atom_capacity);
            lilv_instance_connect_port(instance, index, sequences[index]);
        } else {
            lilv_instance_connect_port(instance, index, NULL);
        }
    }
    if (audio_in != 1 || audio_out != 1) { fprintf(stderr, "not a mono plugin\n"); return 1; }

    LV2_URID sequence_type = map(NULL, LV2_ATOM__Sequence), chunk_type = map(NULL, LV2_ATOM__Chunk);
    lilv_instance_activate(instance);
    for (;;) {
        size_t got = fread(in, sizeof(float), block, stdin);
        if (got == 0) break;
        memset(in + got, 0, (block - got) * sizeof(float));
        for (uint32_t index = 0; index < ports; ++index) {
            if (!sequences[index]) continue;
            const LilvPort *port = lilv_plugin_get_port_by_index(plugin, index);
            if (lilv_port_is_a(plugin, port, input)) {
                sequences[index]->atom = (LV2_Atom){sizeof(LV2_Atom_Sequence_Body), sequence_type};
                sequences[index]->body = (LV2_Atom_Sequence_Body){0, 0};
            } else {
                sequences[index]->atom = (LV2_Atom){atom_capacity - sizeof(LV2_Atom), chunk_type};
            }
        }
        lilv_instance_run(instance, (uint32_t)got);
        fwrite(out, sizeof(float), got, stdout);
    }
    lilv_instance_deactivate(instance);
    lilv_instance_free(instance);
    return 0;
}
