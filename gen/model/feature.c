/* feature — the table of features (feature.h). */
#include "model/feature.h"

/* Each feature's row, defined in its folder. */
extern const feature_ops feature_attribution;

const feature_ops *const features[] = {
	&feature_attribution,
	NULL,
};
