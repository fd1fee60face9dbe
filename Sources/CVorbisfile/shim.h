// The static callback tables in vorbisfile.h would be unused in every importer.
#define OV_EXCLUDE_STATIC_CALLBACKS
#include <vorbis/vorbisfile.h>
