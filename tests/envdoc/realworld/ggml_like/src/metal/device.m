#import <Foundation/Foundation.h>
#include <stdlib.h>

static NSString * resource_path(void) {
    NSString * path = [[NSProcessInfo processInfo].environment objectForKey:@"TL_METAL_PATH_RESOURCES"];
    if (getenv("TL_METAL_NO_RESIDENCY")) { return nil; }
    return path;
}
