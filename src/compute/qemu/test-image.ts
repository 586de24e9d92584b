import { busybox } from '../images/busybox.ts';
import { type BootImage, buildImage } from '../images/recipe.ts';

/** The small busybox image that tests boot (and the KVM probe), built or found under `cacheRoot`. */
export function buildTestImage(cacheRoot?: string): Promise<BootImage> {
  return buildImage(busybox, cacheRoot);
}
