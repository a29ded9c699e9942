/* feature — the table of features (feature.h). */
#include "model/feature.h"

const feature_ops *const features[] = {
	&feature_attribution,
	NULL,
};
