import { useMemo } from 'react';
import { useMe, useMyProjects } from '../shell/shell-queries';
import { productAccess, type ProductAccess } from './product-access';

/**
 * The signed-in person's access to `product`, from their profile and the projects they may see;
 * undefined until both have loaded, so that a page never tells a workspace viewer they have no
 * role just because the project list is still on its way.
 */
export function useProductAccess(product: string): ProductAccess | undefined {
  const me = useMe().data;
  const projects = useMyProjects().data;
  return useMemo(() => {
    if (!me || !projects) return undefined;
    const visible = projects.map((project) => project.slug);
    return productAccess(me.permissions, product, visible);
  }, [me, projects, product]);
}
