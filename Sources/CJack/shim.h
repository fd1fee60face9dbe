#include <jack/jack.h>
#include <jack/midiport.h>
